/// A progressive JPEG decoded at a reduced DCT scale (1/2, 1/4 or 1/8), keeping only the
/// coefficients that scale needs.
///
/// libjpeg must hold every coefficient of a progressive JPEG until its last scan: 2 bytes a
/// coefficient, 3 bytes a pixel for 4:2:0 (48 MB for 16 MP), faulted in and given back for each
/// file. Decoding at 1/s of the size needs only each block's lowest (8/s)×(8/s) frequencies, so
/// this keeps those and one bit a coefficient saying whether it is nonzero yet (what refinement
/// scans need to know): 16 to 40 bytes a block instead of 128. At 1/8 only the DC coefficients
/// count, and every AC scan is stepped over unread: most of the file and most of the work.
///
/// The blocks become pixels by an inverse DCT of the kept frequencies (libjpeg's 1×1 at 1/8);
/// chroma sampled coarser keeps as many more frequencies as it is coarser where it can, else is
/// interpolated like libjpeg's fancy upsampling; then JFIF's YCbCr to RGB.
///
/// Anything else (baseline or arithmetic-coded JPEGs, 12-bit samples, CMYK or RGB-coded
/// components, a truncated or damaged file) gives nil, and libvips decodes the file as before,
/// reporting what it finds.
struct ProgressiveJPEG {
    /// ceil(width / shrink) × ceil(height / shrink), as libjpeg's output at that scale, or the
    /// part of it asked for.
    let width: Int
    let height: Int
    /// 1 (grey) or 3 (sRGB).
    let bands: Int
    /// Rows top to bottom, samples interleaved.
    let buffer: PixelBuffer

    /// A copy of the samples.
    var pixels: [UInt8] { Array(buffer.bytes) }

    /// A copy of the pixels of the top left `width` × `height`.
    func cropped(width: Int, height: Int) -> [UInt8] {
        var rows: [UInt8] = []
        rows.reserveCapacity(width * height * bands)
        for y in 0..<min(height, self.height) {
            rows += buffer.bytes[(y * self.width * bands)..<((y * self.width + min(width, self.width)) * bands)]
        }
        return rows
    }

    /// Nil when the bytes are not a progressive Huffman-coded 8-bit JPEG with 1 or 3 (YCbCr)
    /// components that decodes cleanly to its end, or `shrink` is not 2, 4 or 8.
    /// `keeping`: only the top left part of this size (libvips' size at that scale).
    static func decode(_ data: UnsafeRawBufferPointer, shrink: Int, keeping size: (width: Int, height: Int)? = nil) -> ProgressiveJPEG? {
        guard [2, 4, 8].contains(shrink), data.count > 4, data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        var quant = [[Int]?](repeating: nil, count: 4)
        var dcTables = [JPEGHuffmanTable?](repeating: nil, count: 4), acTables = dcTables
        var frame: ProgressiveFrame?
        var restartInterval = 0
        var adobeTransform: Int?
        var position = 2
        while true {
            // Markers may be preceded by fill bytes.
            guard position + 1 < data.count, data[position] == 0xFF else { return nil }
            if data[position + 1] == 0xFF { position += 1; continue }
            let marker = data[position + 1]
            position += 2
            if marker == 0xD9 { break }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { return nil }
            guard position + 1 < data.count else { return nil }
            let length = Int(data[position]) << 8 | Int(data[position + 1])
            let body = position + 2, end = position + length
            guard length >= 2, end <= data.count else { return nil }
            switch marker {
            case 0xDB: // quantisation tables, in zigzag order
                var at = body
                while at < end {
                    let precision = Int(data[at] >> 4), id = Int(data[at] & 15), size = precision + 1
                    guard id < 4, precision <= 1, at + 1 + 64 * size <= end else { return nil }
                    quant[id] = (0..<64).map { k in
                        precision == 0 ? Int(data[at + 1 + k]) : Int(data[at + 1 + 2 * k]) << 8 | Int(data[at + 2 + 2 * k])
                    }
                    at += 1 + 64 * size
                }
            case 0xC4:
                var at = body
                while at < end {
                    guard at + 17 <= end else { return nil }
                    let tableClass = Int(data[at] >> 4), id = Int(data[at] & 15)
                    let counts = (0..<16).map { Int(data[at + 1 + $0]) }
                    let total = counts.reduce(0, +)
                    guard tableClass <= 1, id < 4, at + 17 + total <= end,
                          let table = JPEGHuffmanTable(counts: counts, symbols: Array(UnsafeRawBufferPointer(rebasing: data[(at + 17)..<(at + 17 + total)])))
                    else { return nil }
                    if tableClass == 0 { dcTables[id] = table } else { acTables[id] = table }
                    at += 17 + total
                }
            case 0xC2: // progressive, Huffman-coded: the one frame type read here
                guard frame == nil, let parsed = ProgressiveFrame(data, body: body, length: length, shrink: shrink) else { return nil }
                frame = parsed
            case 0xC0, 0xC1, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                return nil
            case 0xDD:
                guard length == 4 else { return nil }
                restartInterval = Int(data[body]) << 8 | Int(data[body + 1])
            case 0xEE: // Adobe: transform 0 means the components are not YCbCr
                if length >= 14, data[body] == 0x41, data[body + 1] == 0x64 { adobeTransform = Int(data[body + 11]) }
            case 0xDA:
                guard var current = frame, length >= 6 else { return nil }
                frame = nil // `current` holds the coefficients alone: changed in place, not copied
                if current.components.count == 3, adobeTransform == 0 { return nil }
                let count = Int(data[body])
                guard (1...4).contains(count), length == 6 + 2 * count else { return nil }
                var members: [ProgressiveScan.Member] = []
                for index in 0..<count {
                    let id = data[body + 1 + 2 * index], tables = data[body + 2 + 2 * index]
                    guard let component = current.components.firstIndex(where: { $0.id == id }) else { return nil }
                    members.append(.init(component: component, dc: dcTables[Int(tables >> 4) & 3], ac: acTables[Int(tables & 15) & 3]))
                }
                let approximation = Int(data[body + 3 + 2 * count])
                let scan = ProgressiveScan(members: members, start: Int(data[body + 1 + 2 * count]), end: Int(data[body + 2 + 2 * count]),
                                           high: approximation >> 4, low: approximation & 15, restartInterval: restartInterval)
                guard let scanEnd = JPEGEntropyReader.end(of: data, from: end),
                      current.latchQuantisation(for: scan, tables: quant) else { return nil }
                // At 1/8 only DC coefficients count: AC scans are stepped over.
                if scan.start == 0 || shrink < 8 {
                    guard scan.decode(data, from: end, until: scanEnd, into: &current) else { return nil }
                }
                frame = current
                position = scanEnd
                continue
            default:
                break
            }
            position = end
        }
        guard let frame, frame.components.allSatisfy({ $0.quant != nil }) else { return nil }
        return frame.render(keeping: size)
    }
}
