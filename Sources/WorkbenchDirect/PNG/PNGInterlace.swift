/// Adam7, PNG's interlacing: the image stored as seven smaller images (passes), each every
/// 8th, 4th or 2nd pixel from some offset, each with its own filtered rows. libpng reassembles
/// them before libvips sees a row; so does this, into the rows a non-interlaced file holds.
enum PNGInterlace {
    /// Each pass's first column and row, and its steps across and down.
    static let passes: [(x: Int, y: Int, dx: Int, dy: Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]

    /// A pass's size in pixels (either may be 0: the pass is then absent from the data).
    static func size(of pass: Int, _ header: PNGChunks.Header) -> (width: Int, height: Int) {
        let p = passes[pass]
        return ((header.width - p.x + p.dx - 1) / p.dx, (header.height - p.y + p.dy - 1) / p.dy)
    }

    /// Bytes a pass takes in the inflated data: each row its filter byte and samples.
    static func byteCount(of pass: Int, _ header: PNGChunks.Header) -> Int {
        let (width, height) = size(of: pass, header)
        guard width > 0, height > 0 else { return 0 }
        return height * (1 + rowBytes(width, header))
    }

    static func rowBytes(_ width: Int, _ header: PNGChunks.Header) -> Int { (width * header.channels * header.depth + 7) / 8 }

    /// The inflated passes in `data` unfiltered, then each pixel put where it belongs in `rows`
    /// (the non-interlaced layout: `header.height` rows of a filter byte and `header.rowBytes`).
    static func deinterlace(_ data: UnsafeMutablePointer<UInt8>, into rows: UnsafeMutablePointer<UInt8>,
                            _ header: PNGChunks.Header) throws(PNGRefusal) {
        let stride = header.rowBytes, depth = header.depth
        rows.initialize(repeating: 0, count: header.height * (1 + stride))
        var at = data
        for pass in passes.indices {
            let (width, height) = size(of: pass, header)
            guard width > 0, height > 0 else { continue }
            let passStride = rowBytes(width, header)
            try PNGFilters.unfilter(at, rows: height, stride: passStride, bytesPerPixel: header.filterUnit)
            let p = passes[pass]
            for row in 0..<height {
                let source = at + (row &* (passStride &+ 1) &+ 1)
                let target = rows + ((p.y &+ row &* p.dy) &* (stride &+ 1) &+ 1)
                if depth >= 8 {
                    let bytes = header.channels &* depth / 8
                    for column in 0..<width {
                        (target + (p.x &+ column &* p.dx) &* bytes).update(from: source + column &* bytes, count: bytes)
                    }
                } else {
                    // Samples of 1, 2 or 4 bits, most significant first in each byte.
                    let mask = (1 << depth) - 1
                    for column in 0..<width {
                        let from = column &* depth, to = (p.x &+ column &* p.dx) &* depth
                        let value = (Int(source[from >> 3]) >> (8 - depth - (from & 7))) & mask
                        target[to >> 3] |= UInt8(value << (8 - depth - (to & 7)))
                    }
                }
            }
            at += height * (1 + passStride)
        }
    }
}
