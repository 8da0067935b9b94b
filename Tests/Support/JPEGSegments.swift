import Foundation

/// A JPEG's marker segments, for tests that damage one on purpose: where each starts (its 0xFF),
/// its marker, and its length field; a scan's entry also covers its entropy-coded data.
public struct JPEGSegments {
    public struct Segment {
        public let marker: UInt8
        public let at: Int
        public let length: Int
        /// Where the segment's body starts (after the length).
        public var body: Int { at + 4 }
        /// For a scan: its header's Ss, Se and Ah/Al byte, and the first component's id and tables.
        public func scanBand(_ data: Data) -> (start: Int, end: Int, approximation: Int, count: Int) {
            let count = Int(data[body])
            return (Int(data[body + 1 + 2 * count]), Int(data[body + 2 + 2 * count]), Int(data[body + 3 + 2 * count]), count)
        }
    }

    public let segments: [Segment]

    public init(_ data: Data) {
        var found: [Segment] = []
        var index = 2
        while index + 3 < data.count {
            guard data[index] == 0xFF else { index += 1; continue }
            let marker = data[index + 1]
            if marker == 0 || marker == 0xFF || (0xD0...0xD7).contains(marker) { index += marker == 0xFF ? 1 : 2; continue }
            if marker == 0xD9 { break }
            let length = Int(data[index + 2]) << 8 | Int(data[index + 3])
            found.append(Segment(marker: marker, at: index, length: length))
            index += 2 + length
        }
        segments = found
    }

    public var scans: [Segment] { segments.filter { $0.marker == 0xDA } }

    /// The first AC scan (Ss > 0) of the component with id `component`.
    public func acScan(of component: UInt8, in data: Data) -> Segment? {
        scans.first { $0.scanBand(data).start > 0 && data[$0.body + 1] == component }
    }
}
