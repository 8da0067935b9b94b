/// A progressive JPEG decoded at 1/8 scale from its DC coefficients alone.
///
/// At 1/8 scale each 8×8 block becomes one pixel, its DC coefficient (libjpeg's 1×1 inverse DCT
/// does the same). In a progressive JPEG the DC coefficients have scans of their own, so every AC
/// scan can be stepped over unread: most of the file's bytes, most of libjpeg's time, and the
/// whole-image coefficient buffers it keeps (3 bytes a pixel for 4:2:0, 48 MB for 16 MP).
/// Chroma is interpolated to the luma grid as libjpeg's fancy upsampling does (weights ¾ and ¼).
///
/// Anything else (baseline or arithmetic-coded JPEGs, 12-bit samples, CMYK or RGB-coded
/// components, a truncated or damaged file) gives nil, and libvips decodes the file as before,
/// reporting what it finds.
struct ProgressiveJPEGEighth {
    /// ceil(width / 8) × ceil(height / 8), as libjpeg's output at scale 1/8.
    let width: Int
    let height: Int
    /// 1 (grey) or 3 (sRGB).
    let bands: Int
    /// Rows top to bottom, samples interleaved.
    let pixels: [UInt8]

    /// The pixels of the top left `width` × `height`.
    func cropped(width: Int, height: Int) -> [UInt8] {
        guard width != self.width || height != self.height else { return pixels }
        var rows: [UInt8] = []
        rows.reserveCapacity(width * height * bands)
        for y in 0..<min(height, self.height) {
            rows += pixels[(y * self.width * bands)..<((y * self.width + min(width, self.width)) * bands)]
        }
        return rows
    }

    private struct Component {
        let id: UInt8
        let h: Int, v: Int
        let quantTable: Int
        /// Blocks a row in the coefficient array (the MCU grid, padding included) and rows.
        let stride: Int, rows: Int
        /// Blocks that hold image, across and down (a scan of this component alone covers these).
        let blocksWide: Int, blocksHigh: Int
        /// Where its blocks' DC coefficients start in the image's one array of them.
        let offset: Int
        var quant: Int = 0
        var started = false
    }

    /// Nil when the bytes are not a progressive Huffman-coded 8-bit JPEG with 1 or 3 (YCbCr)
    /// components that decodes cleanly to its end.
    static func decode(_ data: UnsafeRawBufferPointer) -> ProgressiveJPEGEighth? {
        guard data.count > 4, data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        var quant = [Int?](repeating: nil, count: 4)
        var tables = [JPEGHuffmanTable?](repeating: nil, count: 4)
        var components: [Component] = []
        var coefficients: [Int16] = []
        var size = (width: 0, height: 0), maxH = 1, maxV = 1
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
            case 0xDB: // quantisation tables: only entry 0 (the DC's) matters here
                var at = body
                while at < end {
                    let precision = Int(data[at] >> 4), id = Int(data[at] & 15)
                    guard id < 4, precision <= 1, at + 1 + 64 * (precision + 1) <= end else { return nil }
                    quant[id] = precision == 0 ? Int(data[at + 1]) : Int(data[at + 1]) << 8 | Int(data[at + 2])
                    at += 1 + 64 * (precision + 1)
                }
            case 0xC4: // Huffman tables: only the DC class is kept
                var at = body
                while at < end {
                    guard at + 17 <= end else { return nil }
                    let tableClass = Int(data[at] >> 4), id = Int(data[at] & 15)
                    let counts = (0..<16).map { Int(data[at + 1 + $0]) }
                    let total = counts.reduce(0, +)
                    guard tableClass <= 1, id < 4, at + 17 + total <= end else { return nil }
                    if tableClass == 0 {
                        guard let table = JPEGHuffmanTable(counts: counts, symbols: Array(UnsafeRawBufferPointer(rebasing: data[(at + 17)..<(at + 17 + total)]))) else { return nil }
                        tables[id] = table
                    }
                    at += 17 + total
                }
            case 0xC2: // progressive, Huffman-coded: the one frame type read here
                guard components.isEmpty, length >= 8, data[body] == 8 else { return nil }
                size = (Int(data[body + 3]) << 8 | Int(data[body + 4]), Int(data[body + 1]) << 8 | Int(data[body + 2]))
                let count = Int(data[body + 5])
                guard size.width > 0, size.height > 0, count == 1 || count == 3, length == 8 + 3 * count else { return nil }
                var sampling: [(id: UInt8, h: Int, v: Int, q: Int)] = []
                for index in 0..<count {
                    let at = body + 6 + 3 * index
                    let h = Int(data[at + 1] >> 4), v = Int(data[at + 1] & 15), q = Int(data[at + 2])
                    guard (1...4).contains(h), (1...4).contains(v), q < 4 else { return nil }
                    sampling.append((data[at], h, v, q))
                }
                maxH = sampling.map(\.h).max() ?? 1
                maxV = sampling.map(\.v).max() ?? 1
                let mcusWide = (size.width + 8 * maxH - 1) / (8 * maxH), mcusHigh = (size.height + 8 * maxV - 1) / (8 * maxV)
                for s in sampling {
                    // Chroma must divide the luma grid evenly for the interpolation below.
                    guard maxH % s.h == 0, maxV % s.v == 0 else { return nil }
                    let samplesWide = (size.width * s.h + maxH - 1) / maxH, samplesHigh = (size.height * s.v + maxV - 1) / maxV
                    components.append(Component(id: s.id, h: s.h, v: s.v, quantTable: s.q, stride: mcusWide * s.h, rows: mcusHigh * s.v,
                                                blocksWide: (samplesWide + 7) / 8, blocksHigh: (samplesHigh + 7) / 8,
                                                offset: components.last.map { $0.offset + $0.stride * $0.rows } ?? 0))
                }
                coefficients = [Int16](repeating: 0, count: components.last.map { $0.offset + $0.stride * $0.rows } ?? 0)
                // JFIF reads three components as YCbCr unless they are named R, G, B.
                if count == 3, sampling.map(\.id) == [0x52, 0x47, 0x42] { return nil }
            case 0xC0, 0xC1, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                return nil
            case 0xDD:
                guard length == 4 else { return nil }
                restartInterval = Int(data[body]) << 8 | Int(data[body + 1])
            case 0xEE: // Adobe: transform 0 means the components are not YCbCr
                if length >= 14, data[body] == 0x41, data[body + 1] == 0x64 { adobeTransform = Int(data[body + 11]) }
            case 0xDA:
                guard !components.isEmpty, length >= 6 else { return nil }
                if components.count == 3, adobeTransform == 0 { return nil }
                let count = Int(data[body])
                guard (1...4).contains(count), length == 6 + 2 * count else { return nil }
                var members: [(index: Int, table: Int)] = []
                for index in 0..<count {
                    let id = data[body + 1 + 2 * index], table = Int(data[body + 2 + 2 * index] >> 4)
                    guard let component = components.firstIndex(where: { $0.id == id }), table < 4 else { return nil }
                    members.append((component, table))
                }
                let spectralStart = Int(data[body + 1 + 2 * count]), spectralEnd = Int(data[body + 2 + 2 * count])
                let approximation = Int(data[body + 3 + 2 * count])
                let (high, low) = (approximation >> 4, approximation & 15)
                guard let scanEnd = JPEGEntropyReader.end(of: data, from: end) else { return nil }
                if spectralStart == 0 {
                    guard spectralEnd == 0, low < 14 else { return nil }
                    for member in members where !components[member.index].started {
                        guard high == 0, let q = quant[components[member.index].quantTable] else { return nil }
                        components[member.index].quant = q
                        components[member.index].started = true
                    }
                    var scan: [(component: Component, table: JPEGHuffmanTable?)] = []
                    for member in members {
                        guard high != 0 || tables[member.table] != nil else { return nil }
                        scan.append((components[member.index], tables[member.table]))
                    }
                    let decoded = coefficients.withUnsafeMutableBufferPointer { dc in
                        decodeDCScan(data, from: end, until: scanEnd, scan: scan, into: dc, refining: high != 0, shift: low,
                                     restartInterval: restartInterval, mcusWide: (size.width + 8 * maxH - 1) / (8 * maxH),
                                     mcusHigh: (size.height + 8 * maxV - 1) / (8 * maxV))
                    }
                    guard decoded else { return nil }
                } else if members.contains(where: { !components[$0.index].started }) {
                    return nil // an AC scan before its component's DC: not a valid progressive JPEG
                }
                position = scanEnd
                continue
            default:
                break
            }
            position = end
        }
        guard !components.isEmpty, components.allSatisfy(\.started) else { return nil }
        return coefficients.withUnsafeBufferPointer { render(components, $0, size: size, maxH: maxH, maxV: maxV) }
    }

    /// Reads one DC scan's coefficients (first pass or a refinement bit), interleaved MCU by MCU
    /// or, for a scan of one component, block by block over the blocks that hold image.
    private static func decodeDCScan(_ data: UnsafeRawBufferPointer, from start: Int, until end: Int,
                                     scan: [(component: Component, table: JPEGHuffmanTable?)], into dc: UnsafeMutableBufferPointer<Int16>,
                                     refining: Bool, shift: Int, restartInterval: Int, mcusWide: Int, mcusHigh: Int) -> Bool {
        var reader = JPEGEntropyReader(data, at: start)
        let single = scan.count == 1
        let across = single ? scan[0].component.blocksWide : mcusWide
        let down = single ? scan[0].component.blocksHigh : mcusHigh
        // Per component of the scan: blocks across and down in an MCU, row stride, first block, table.
        let layout = scan.map { (h: single ? 1 : $0.component.h, v: single ? 1 : $0.component.v,
                                 stride: $0.component.stride, offset: $0.component.offset) }
        let tables = scan.map(\.table)
        // The short codes' look-up tables side by side, read through one pointer: handing the
        // tables themselves to the reader block by block costs more than the decoding.
        let lookups = tables.flatMap { $0?.lookup ?? [UInt16](repeating: 0, count: 1 << JPEGHuffmanTable.lookupBits) }
        return lookups.withUnsafeBufferPointer { lookups in
        var predictions = [Int](repeating: 0, count: scan.count)
        var restarts = 0
        let bit = Int16(truncatingIfNeeded: 1 << shift)
        for mcu in 0..<(across * down) {
            if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                guard reader.restart(number: restarts) else { return false }
                restarts += 1
                for slot in predictions.indices { predictions[slot] = 0 }
            }
            let (x, y) = (mcu % across, mcu / across)
            for slot in layout.indices {
                let (h, v, stride, offset) = layout[slot]
                for by in 0..<v {
                    let row = offset + (y * v + by) * stride + x * h
                    for bx in 0..<h {
                        if refining {
                            if reader.bits(1) != 0 { dc[row + bx] |= bit }
                        } else {
                            let short = reader.shortSymbol(lookups.baseAddress! + slot << JPEGHuffmanTable.lookupBits)
                            guard let category = short ?? tables[slot].flatMap({ reader.symbol($0) }), category <= 11 else { return false }
                            predictions[slot] += reader.difference(category: category)
                            dc[row + bx] = Int16(truncatingIfNeeded: predictions[slot] << shift)
                        }
                    }
                }
            }
        }
        return !reader.readPastEnd && reader.position <= end
        }
    }

    /// DC to samples as libjpeg's 1×1 inverse DCT, chroma brought to the luma grid, YCbCr to RGB.
    private static func render(_ components: [Component], _ dc: UnsafeBufferPointer<Int16>, size: (width: Int, height: Int),
                               maxH: Int, maxV: Int) -> ProgressiveJPEGEighth {
        let width = (size.width + 7) / 8, height = (size.height + 7) / 8
        let planes: [[UInt8]] = components.map { component in
            // Each block's sample first, then (for chroma) interpolated at the centres of the
            // output pixels: (x + ½) / f − ½ in its samples, in 1/8ths (f is 1, 2 or 4).
            var samples = [UInt8](repeating: 0, count: component.blocksWide * component.blocksHigh)
            for y in 0..<component.blocksHigh {
                for x in 0..<component.blocksWide {
                    let value = (Int(dc[component.offset + y * component.stride + x]) * component.quant + 4) >> 3 + 128
                    samples[y * component.blocksWide + x] = UInt8(clamping: value)
                }
            }
            let fx = maxH / component.h, fy = maxV / component.v
            if fx == 1 && fy == 1 && component.blocksWide == width && component.blocksHigh == height { return samples }
            let xs = (0..<width).map { taps(centre: $0, factor: fx, count: component.blocksWide) }
            var plane = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                let (y0, y1, wy) = taps(centre: y, factor: fy, count: component.blocksHigh)
                let top = y0 * component.blocksWide, bottom = y1 * component.blocksWide
                for x in 0..<width {
                    let (x0, x1, wx) = xs[x]
                    let upper = Int(samples[top + x0]) * (8 - wx) + Int(samples[top + x1]) * wx
                    let lower = Int(samples[bottom + x0]) * (8 - wx) + Int(samples[bottom + x1]) * wx
                    plane[y * width + x] = UInt8(clamping: (upper * (8 - wy) + lower * wy + 32) >> 6)
                }
            }
            return plane
        }
        guard planes.count == 3 else { return ProgressiveJPEGEighth(width: width, height: height, bands: 1, pixels: planes[0]) }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<(width * height) {
            // JFIF's YCbCr → RGB, in 1/65536ths.
            let luma = Int(planes[0][index]) << 16 + 32768, cb = Int(planes[1][index]) - 128, cr = Int(planes[2][index]) - 128
            pixels[3 * index] = UInt8(clamping: (luma + 91881 * cr) >> 16)
            pixels[3 * index + 1] = UInt8(clamping: (luma - 22554 * cb - 46802 * cr) >> 16)
            pixels[3 * index + 2] = UInt8(clamping: (luma + 116130 * cb) >> 16)
        }
        return ProgressiveJPEGEighth(width: width, height: height, bands: 3, pixels: pixels)
    }

    /// The two samples either side of output pixel `centre`'s centre, on a grid `factor` times
    /// coarser, and the far one's weight in 1/8ths (clamped at the edges).
    private static func taps(centre: Int, factor: Int, count: Int) -> (Int, Int, Int) {
        let position = (16 * centre + 8) / factor - 8 // in 1/16ths of a sample
        let near = max(0, min(count - 1, position >> 4))
        let weight = position < 0 ? 0 : ((position & 15) + 1) / 2
        return (near, min(near + 1, count - 1), weight)
    }
}
