/// Unfiltered rows to interleaved samples: the filter byte dropped, a palette looked up, a
/// `tRNS` colour made transparent — what libpng's expansion gives libvips.
enum PNGExpansion {
    static func expand(_ raw: UnsafePointer<UInt8>, header: PNGChunks.Header, palette: [UInt8], transparency: [UInt8]?,
                       into out: UnsafeMutablePointer<UInt8>, bands: Int) throws(PNGRefusal) {
        if header.depth == 16 {
            expandKeyed16(raw, header: header, key: transparency ?? [], into: out)
            return
        }
        let width = header.width, stride = header.rowBytes
        var outOfPalette = false
        // Samples of fewer than 8 bits are unpacked first, grey scaled to 0…255 as libpng scales it.
        let depth = header.depth
        let unpacked = UnsafeMutablePointer<UInt8>.allocate(capacity: depth < 8 ? width : 1)
        defer { unpacked.deallocate() }
        let scale = depth < 8 && header.colourType == 0 ? 255 / ((1 << depth) - 1) : 1
        for y in 0..<header.height {
            var row = raw + (y &* (stride &+ 1) &+ 1)
            let target = out + y &* width &* bands
            if depth < 8 {
                let mask = (1 << depth) - 1
                for x in 0..<width {
                    let bit = x &* depth
                    unpacked[x] = UInt8((Int(row[bit >> 3]) >> (8 - depth - (bit & 7))) & mask)
                }
                if header.colourType == 0, let key = transparency {
                    // tRNS names the grey at the file's depth: compared before scaling.
                    let grey = Int(key[0]) << 8 | Int(key[1])
                    for x in 0..<width {
                        target[x &* 2] = UInt8(Int(unpacked[x]) &* scale)
                        target[x &* 2 &+ 1] = Int(unpacked[x]) == grey ? 0 : 255
                    }
                    continue
                }
                if header.colourType == 0 {
                    for x in 0..<width { target[x] = UInt8(Int(unpacked[x]) &* scale) }
                    continue
                }
                row = UnsafePointer(unpacked)
            }
            switch (header.colourType, transparency) {
            case (3, let alpha):
                let entries = palette.count / 3
                palette.withUnsafeBufferPointer { colours in
                    for x in 0..<width {
                        let index = Int(row[x])
                        if index >= entries { outOfPalette = true; continue }
                        let pixel = target + x &* bands
                        pixel[0] = colours[index &* 3]; pixel[1] = colours[index &* 3 &+ 1]; pixel[2] = colours[index &* 3 &+ 2]
                        if let alpha { pixel[3] = index < alpha.count ? alpha[index] : 255 }
                    }
                }
            case (0, let key?):
                // A 16-bit key compared with 8-bit samples: only its low byte can match, and only if its high byte is 0.
                let grey = key[0] == 0 ? Int(key[1]) : -1
                for x in 0..<width {
                    target[x &* 2] = row[x]
                    target[x &* 2 &+ 1] = Int(row[x]) == grey ? 0 : 255
                }
            case (2, let key?):
                let colour = key[0] == 0 && key[2] == 0 && key[4] == 0 ? (Int(key[1]), Int(key[3]), Int(key[5])) : (-1, -1, -1)
                for x in 0..<width {
                    let pixel = row + x &* 3, to = target + x &* 4
                    to[0] = pixel[0]; to[1] = pixel[1]; to[2] = pixel[2]
                    to[3] = (Int(pixel[0]), Int(pixel[1]), Int(pixel[2])) == colour ? 0 : 255
                }
            default:
                target.update(from: row, count: width &* header.channels)
            }
        }
        if outOfPalette { throw .indexPastPalette }
    }

    /// 16-bit samples (big-endian in the file) in the machine's order, in place.
    static func toMachineOrder(_ samples: UnsafeMutablePointer<UInt8>, count: Int) {
        guard UInt16(1).littleEndian == 1 else { return }
        for i in 0..<count {
            let at = samples + i &* 2
            (at[0], at[1]) = (at[1], at[0])
        }
    }

    /// 16-bit grey or RGB with a `tRNS` colour: an alpha band added, 0 where all samples equal
    /// the key, 65535 elsewhere, every sample in the machine's order (libpng's tRNS-to-alpha).
    private static func expandKeyed16(_ raw: UnsafePointer<UInt8>, header: PNGChunks.Header, key: [UInt8],
                                      into out: UnsafeMutablePointer<UInt8>) {
        let channels = header.channels, stride = header.rowBytes
        let keyed = (0..<channels).map { UInt16(key[$0 &* 2]) << 8 | UInt16(key[$0 &* 2 &+ 1]) }
        out.withMemoryRebound(to: UInt16.self, capacity: header.width * header.height * (channels + 1)) { target in
            for y in 0..<header.height {
                let row = raw + (y &* (stride &+ 1) &+ 1)
                var to = target + y &* header.width &* (channels &+ 1)
                for x in 0..<header.width {
                    var matches = true
                    for c in 0..<channels {
                        let at = row + (x &* channels &+ c) &* 2
                        let value = UInt16(at[0]) << 8 | UInt16(at[1])
                        matches = matches && value == keyed[c]
                        to[c] = value
                    }
                    to[channels] = matches ? 0 : 65535
                    to += channels &+ 1
                }
            }
        }
    }
}
