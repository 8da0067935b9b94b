/// What a JPEG's header says of its frame, read without decoding anything: enough to know how
/// much memory libjpeg will take for it before asking it to.
public struct JPEGFrameHeader: Sendable {
    public let width: Int
    public let height: Int
    /// A progressive frame, or a sequential one whose first scan leaves components for later:
    /// either way libjpeg holds every coefficient of the image until the last scan.
    public let buffersCoefficients: Bool
    /// Sampling factors of each component.
    let sampling: [(h: Int, v: Int)]

    /// Nil when the bytes are not a JPEG whose frame header comes before its end.
    public init?(_ data: UnsafeRawBufferPointer) {
        guard data.count > 4, data[0] == JPEGMarker.prefix, data[1] == JPEGMarker.startOfImage else { return nil }
        var position = 2
        var frame: (width: Int, height: Int, progressive: Bool, sampling: [(h: Int, v: Int)])?
        while position + 3 < data.count {
            guard data[position] == JPEGMarker.prefix else { position += 1; continue }
            let marker = data[position + 1]
            if marker == JPEGMarker.prefix || marker == 0 || JPEGMarker.restarts.contains(marker) { position += marker == JPEGMarker.prefix ? 1 : 2; continue }
            if marker == JPEGMarker.endOfImage { break }
            let length = Int(data[position + 2]) << 8 | Int(data[position + 3])
            let body = position + 4
            if JPEGMarker.isFrame(marker), length >= 8, body + length - 2 <= data.count {
                let count = Int(data[body + 5])
                guard length >= 8 + 3 * count else { return nil }
                let sampling = (0..<count).map { (h: max(1, Int(data[body + 7 + 3 * $0] >> 4)), v: max(1, Int(data[body + 7 + 3 * $0] & 15))) }
                frame = (Int(data[body + 3]) << 8 | Int(data[body + 4]), Int(data[body + 1]) << 8 | Int(data[body + 2]),
                         JPEGMarker.isProgressiveFrame(marker), sampling)
            }
            if marker == JPEGMarker.startOfScan, let found = frame, body < data.count {
                width = found.width
                height = found.height
                sampling = found.sampling
                buffersCoefficients = found.progressive || Int(data[body]) < found.sampling.count
                return
            }
            position = body + length - 2
        }
        return nil
    }

    /// The bytes libjpeg allocates for the coefficients of the whole image when it buffers them
    /// (`jdcoefct.c`: each component's blocks, rounded up to its sampling factors, 128 bytes a
    /// block, whatever the output scale); 0 when it decodes row by row.
    public var libjpegCoefficientBytes: Int {
        guard buffersCoefficients else { return 0 }
        let maxH = sampling.map(\.h).max() ?? 1, maxV = sampling.map(\.v).max() ?? 1
        return sampling.reduce(0) { total, s in
            let blocksWide = ((width * s.h + maxH - 1) / maxH + 7) / 8, blocksHigh = ((height * s.v + maxV - 1) / maxV + 7) / 8
            let wide = (blocksWide + s.h - 1) / s.h * s.h, high = (blocksHigh + s.v - 1) / s.v * s.v
            return total + wide * high * 128
        }
    }
}
