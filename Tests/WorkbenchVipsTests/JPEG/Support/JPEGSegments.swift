import Foundation

/// A JPEG's marker segments, for tests that damage one on purpose: where each starts (its 0xFF),
/// its marker, and its length field; a scan's entry also covers its entropy-coded data.
struct JPEGSegments {
    struct Segment {
        let marker: UInt8
        let at: Int
        let length: Int
        /// Where the segment's body starts (after the length).
        var body: Int { at + 4 }
        /// For a scan: its header's Ss, Se and Ah/Al byte, and the first component's id and tables.
        func scanBand(_ data: Data) -> (start: Int, end: Int, approximation: Int, count: Int) {
            let count = Int(data[body])
            return (Int(data[body + 1 + 2 * count]), Int(data[body + 2 + 2 * count]), Int(data[body + 3 + 2 * count]), count)
        }
    }

    let segments: [Segment]

    init(_ data: Data) {
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

    var scans: [Segment] { segments.filter { $0.marker == 0xDA } }

    /// The first AC scan (Ss > 0) of the component with id `component`.
    func acScan(of component: UInt8, in data: Data) -> Segment? {
        scans.first { $0.scanBand(data).start > 0 && data[$0.body + 1] == component }
    }
}

/// Hand-made progressive JPEG headers: a frame of any size over as few bytes of scan data as
/// wanted, the shape of a decompression bomb.
enum JPEGBomb {
    static func make(width: Int, height: Int, components: Int = 3, dataBytes: Int = 64) -> Data {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 255)] + body
        }
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        var frame: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 255), UInt8(width >> 8), UInt8(width & 255), UInt8(components)]
        for id in 1...components { frame += [UInt8(id), 0x11, 0] }
        bytes += segment(0xC2, frame)
        // One DC code, 1 bit long, for category 0.
        bytes += segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0])
        var scan: [UInt8] = [UInt8(components)]
        for id in 1...components { scan += [UInt8(id), 0] }
        bytes += segment(0xDA, scan + [0, 0, 0])
        bytes += [UInt8](repeating: 0x12, count: dataBytes)
        bytes += [0xFF, 0xD9]
        return Data(bytes)
    }
}
