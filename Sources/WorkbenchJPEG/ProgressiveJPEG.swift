/// A progressive JPEG decoded at a reduced DCT scale (1/2, 1/4 or 1/8), keeping only the
/// coefficients that scale needs.
///
/// libjpeg must hold every coefficient of a progressive JPEG until its last scan: 2 bytes a
/// coefficient, 3 bytes a pixel for 4:2:0 (48 MB for 16 MP), faulted in and given back for each
/// file. A reduced inverse DCT depends on only some frequencies of each block (`ScaledIDCT`), so
/// this keeps those, and a bit a coefficient saying whether it is nonzero yet (what refinement
/// scans need to know). At 1/8 a component sampled at full resolution needs only its DC, yet its
/// AC scans are decoded all the same (keeping nothing), for any damage in them.
///
/// The output is libjpeg-turbo's at the same scale: the same inverse DCT sizes per component, the
/// same upsampling, the same YCbCr to RGB, to within a level of rounding. Anything this decoder
/// does not read, and any file libjpeg would refuse or decode with a warning, is refused with the
/// reason (`ProgressiveRefusal`), and the caller gives the file to libjpeg.
public struct ProgressiveJPEG {
    /// ceil(width / shrink) × ceil(height / shrink), as libjpeg's output at that scale, or the
    /// part of it asked for.
    public let width: Int
    public let height: Int
    /// 1 (grey) or 3 (sRGB).
    public let bands: Int
    /// Rows top to bottom, samples interleaved.
    public let buffer: PixelBuffer

    /// The most memory a decode may take unless told otherwise: 1 GiB.
    public static let defaultMemoryLimit = 1 << 30

    /// A copy of the samples.
    public var pixels: [UInt8] { Array(buffer.bytes) }

    /// A copy of the pixels of the top left `width` × `height`.
    public func cropped(width: Int, height: Int) -> [UInt8] {
        var rows: [UInt8] = []
        rows.reserveCapacity(width * height * bands)
        for y in 0..<min(height, self.height) {
            rows += buffer.bytes[(y * self.width * bands)..<((y * self.width + min(width, self.width)) * bands)]
        }
        return rows
    }

    /// Decodes a progressive, Huffman-coded, 8-bit JPEG with 1 or 3 (YCbCr) components at
    /// 1/`shrink` (2, 4 or 8). `keeping`: only the top left part of this size (libvips' size at
    /// that scale). `memoryLimit`: refuse a decode that would take more bytes than this, before
    /// taking any. Memory is taken only once the file's data shows the blocks are there: a header
    /// that claims a huge image over a few bytes costs nothing. `lowPass`: keep only frequencies
    /// below 4 of each block (`ScaledIDCT.Shape`), for an image that will be reduced by at least
    /// 2× more — a third of the memory at 1/2, and pixels no longer libjpeg's.
    public static func decode(_ data: UnsafeRawBufferPointer, shrink: Int, keeping size: (width: Int, height: Int)? = nil,
                              memoryLimit: Int = defaultMemoryLimit, lowPass: Bool = false) throws(ProgressiveRefusal) -> ProgressiveJPEG {
        guard ProcessorSupport.runsDecoder else { throw .unsupported(.processor, "this processor has no POPCNT instruction") }
        guard [2, 4, 8].contains(shrink) else { throw .unsupported(.scale, "a scale of 1/\(shrink) (2, 4 or 8 are read)") }
        guard data.count > 4, data[0] == JPEGMarker.prefix, data[1] == JPEGMarker.startOfImage else { throw .unsupported(.notJpeg, "not a JPEG") }
        var walk = MarkerWalk(data: data, shrink: shrink, memoryLimit: memoryLimit, decodes: true, lowPass: lowPass)
        var frame = try walk.run()
        return try frame.render(keeping: size)
    }
}

extension ProgressiveJPEG {
    /// Reads a progressive JPEG's markers and scan headers without decoding anything or taking
    /// memory: throws what the checks of the structure find (a table, band or marker libjpeg
    /// refuses, a scan whose data cannot hold its blocks: `truncated`). For a decode libjpeg will
    /// do, to fail a file cut short before libjpeg makes up its missing pixels.
    public static func checkStructure(_ data: UnsafeRawBufferPointer) throws(ProgressiveRefusal) {
        guard data.count > 4, data[0] == JPEGMarker.prefix, data[1] == JPEGMarker.startOfImage else { throw .unsupported(.notJpeg, "not a JPEG") }
        var walk = MarkerWalk(data: data, shrink: 8, memoryLimit: .max, decodes: false)
        _ = try walk.run()
    }
}

/// The file read marker by marker as libjpeg's `read_markers` does, with the scans decoded as
/// they come (or, `decodes` false, only their headers checked and their data measured).
private struct MarkerWalk {
    let data: UnsafeRawBufferPointer
    let shrink: Int
    let memoryLimit: Int
    let decodes: Bool
    /// Keep only the frequencies below 4 (`ScaledIDCT.Shape.lowPass`).
    let lowPass: Bool
    var quant = [[Int]?](repeating: nil, count: 4)
    var dcTables = [JPEGHuffmanTable?](repeating: nil, count: 4)
    var acTables = [JPEGHuffmanTable?](repeating: nil, count: 4)
    var frame: ProgressiveFrame?
    var restartInterval = 0
    var sawJFIF = false
    var adobeTransform: Int?
    var scans = 0

    init(data: UnsafeRawBufferPointer, shrink: Int, memoryLimit: Int, decodes: Bool, lowPass: Bool = false) {
        self.data = data
        self.lowPass = lowPass
        self.shrink = shrink
        self.memoryLimit = memoryLimit
        self.decodes = decodes
    }

    mutating func run() throws(ProgressiveRefusal) -> ProgressiveFrame {
        var position = 2
        while true {
            // Markers may be preceded by fill bytes; libjpeg skips other bytes with a warning.
            guard position + 1 < data.count else { throw .damaged(.truncated, "the file ends before its end-of-image marker", at: position) }
            guard data[position] == JPEGMarker.prefix else { throw .damaged(.strayBytes, "bytes where a marker should be", at: position) }
            if data[position + 1] == JPEGMarker.prefix { position += 1; continue }
            let marker = data[position + 1], at = position
            // FF 00 is a stuffed zero inside entropy-coded data, never a marker: between segments
            // it is stray bytes, which libjpeg skips with a warning ("2 extraneous bytes before
            // marker"), so the file goes to it rather than 00's "length" being read.
            if marker == 0 { throw .damaged(.strayBytes, "bytes FF 00 where a marker should be", at: position) }
            position += 2
            if marker == JPEGMarker.endOfImage { break }
            if marker == JPEGMarker.startOfImage { throw .damaged(.duplicateSoi, "a second start-of-image marker", at: at) }
            if JPEGMarker.restarts.contains(marker) || marker == JPEGMarker.temporary {
                throw .damaged(.strayMarker, "a restart marker outside a scan", at: at)
            }
            guard position + 1 < data.count else { throw .damaged(.truncated, "the file ends inside a marker", at: at) }
            let length = Int(data[position]) << 8 | Int(data[position + 1])
            let body = position + 2, end = position + length
            guard length >= 2, end <= data.count else { throw .damaged(.truncated, "a marker segment of \(length) bytes runs past the file's end", at: at) }
            switch marker {
            case JPEGMarker.quantisationTables: try readQuantisation(body, end)
            case JPEGMarker.huffmanTables: try readHuffman(body, end)
            case JPEGMarker.progressiveHuffman:
                guard frame == nil, scans == 0 else { throw .damaged(.duplicateFrame, "a second frame header", at: at) }
                let parsed = try ProgressiveFrame(data, body: body, length: length, shrink: shrink, lowPass: lowPass)
                guard parsed.workingSet <= memoryLimit else {
                    throw ProgressiveRefusal(.memory, .memory, "decoding \(parsed.width)×\(parsed.height) at 1/\(shrink) needs \(Self.megabytes(parsed.workingSet)), over the limit of \(Self.megabytes(memoryLimit))")
                }
                frame = parsed
            case _ where JPEGMarker.isFrame(marker):
                if frame != nil || scans > 0 { throw .damaged(.duplicateFrame, "a second frame header", at: at) }
                // A progressive file this decoder leaves to libjpeg says why (`--verbose` shows it);
                // any other kind is simply not this decoder's.
                if marker == JPEGMarker.progressiveArithmetic {
                    throw .unsupported(.arithmeticCoding, "a progressive JPEG with arithmetic coding", at: at)
                }
                if JPEGMarker.isProgressiveFrame(marker) {
                    throw .unsupported(.hierarchical, "a hierarchical (differential) progressive JPEG", at: at)
                }
                throw .unsupported(.notProgressive, "a \(JPEGMarker.frameName(marker)) JPEG", at: at)
            case JPEGMarker.restartInterval:
                guard length == 4 else { throw .damaged(.badLength, "a restart interval segment of \(length) bytes", at: at) }
                restartInterval = Int(data[body]) << 8 | Int(data[body + 1])
            case JPEGMarker.startOfScan:
                position = try readScan(body: body, length: length, end: end, at: at)
                continue
            case JPEGMarker.arithmeticConditioning:
                // libjpeg checks its values; a Huffman-coded file has no use for it.
                throw .unsupported(.arithmeticConditioning, "an arithmetic conditioning segment", at: at)
            case JPEGMarker.applications, JPEGMarker.comment, JPEGMarker.numberOfLines:
                if marker == JPEGMarker.applications.lowerBound, length >= 16, Array(UnsafeRawBufferPointer(rebasing: data[body..<(body + 5)])) == Array("JFIF\0".utf8) { sawJFIF = true }
                if marker == JPEGMarker.adobe, length >= 14, Array(UnsafeRawBufferPointer(rebasing: data[body..<(body + 5)])) == Array("Adobe".utf8) {
                    adobeTransform = Int(data[body + 11])
                }
            default:
                throw .damaged(.unknownMarker, "marker 0x\(String(marker, radix: 16, uppercase: true)), which libjpeg does not know", at: at)
            }
            position = end
        }
        guard let frame else { throw .damaged(.noFrame, "no frame header before the end of the image") }
        self.frame = nil
        for component in frame.components {
            guard component.quant != nil else { throw .damaged(.missingComponent, "component \(component.id) is in no scan") }
            // libjpeg smooths the blocks of a component whose low frequencies never reached
            // full precision (`smoothing_ok`): a look of its own, left to it.
            if let k = (1...9).first(where: { component.precision[$0] != 0 }) {
                throw .unsupported(.incompleteScans, "coefficient \(k) of component \(component.id) never reaches full precision (libjpeg smooths such blocks)")
            }
        }
        return frame
    }

    private mutating func readQuantisation(_ body: Int, _ end: Int) throws(ProgressiveRefusal) {
        var at = body
        while at < end {
            let precision = Int(data[at] >> 4), id = Int(data[at] & 15), size = precision + 1
            guard id < 4 else { throw .damaged(.badQuantisationTable, "quantisation table \(id) (0…3)", at: at) }
            guard precision <= 1 else { throw .unsupported(.quantisationPrecision, "a quantisation table of precision \(precision)", at: at) }
            guard at + 1 + 64 * size <= end else { throw .damaged(.badLength, "a quantisation table cut short", at: at) }
            quant[id] = (0..<64).map { k in
                precision == 0 ? Int(data[at + 1 + k]) : Int(data[at + 1 + 2 * k]) << 8 | Int(data[at + 2 + 2 * k])
            }
            at += 1 + 64 * size
        }
    }

    private mutating func readHuffman(_ body: Int, _ end: Int) throws(ProgressiveRefusal) {
        var at = body
        while at < end {
            guard at + 17 <= end else { throw .damaged(.badHuffmanTable, "a Huffman table cut short", at: at) }
            let tableClass = Int(data[at] >> 4), id = Int(data[at] & 15)
            let counts = (0..<16).map { Int(data[at + 1 + $0]) }
            let total = counts.reduce(0, +)
            guard tableClass <= 1, id < 4 else { throw .damaged(.badHuffmanTable, "Huffman table class \(tableClass) id \(id)", at: at) }
            guard total <= 256, at + 17 + total <= end else { throw .damaged(.badHuffmanTable, "a Huffman table of \(total) symbols in too few bytes", at: at) }
            let table = JPEGHuffmanTable(counts: counts, symbols: Array(UnsafeRawBufferPointer(rebasing: data[(at + 17)..<(at + 17 + total)])))
            if tableClass == 0 { dcTables[id] = table } else { acTables[id] = table }
            at += 17 + total
        }
    }

    /// One scan: its header checked, its data decoded (or stepped over when no kept coefficient
    /// is in it); returns where the next marker is.
    private mutating func readScan(body: Int, length: Int, end: Int, at: Int) throws(ProgressiveRefusal) -> Int {
        guard var current = frame else { throw .damaged(.scanBeforeFrame, "a scan before the frame header", at: at) }
        scans += 1
        if scans == 1, current.components.count == 3, !isYCbCr(current) {
            throw .unsupported(.notYcbcr, "three components that are not YCbCr (RGB by their names or Adobe's marker)", at: at)
        }
        let scan = try ProgressiveScan(data, body: body, length: length, number: scans, frame: current, dcTables: dcTables,
                                       acTables: acTables, restartInterval: restartInterval)
        guard let scanEnd = JPEGEntropyReader.end(of: data, from: end) else {
            throw .damaged(.truncated, "the file ends inside scan \(scans)", at: end)
        }
        try scan.advancePrecision(of: &current)
        try current.prepare(for: scan, quantisation: quant, dataBytes: scanEnd - end, at: at, makingStores: decodes)
        frame = nil // `current` holds the coefficients alone: changed in place, not copied
        // Every scan is decoded, also one whose coefficients this scale does not keep: libjpeg
        // warns of damage in it, and libvips gives up on a file after 100 warnings.
        if decodes { try scan.decode(data, from: end, until: scanEnd, into: current) }
        frame = current
        return scanEnd
    }

    /// What libjpeg takes three components to be: YCbCr after a JFIF marker; otherwise as
    /// Adobe's marker says; otherwise RGB only when named R, G, B.
    private func isYCbCr(_ frame: ProgressiveFrame) -> Bool {
        if sawJFIF { return true }
        if let adobeTransform { return adobeTransform != 0 }
        return frame.components.map(\.id) != [0x52, 0x47, 0x42]
    }

    static func megabytes(_ bytes: Int) -> String {
        let value = Double(bytes) / 1_048_576
        return value >= 10 ? "\(Int(value.rounded())) MiB" : "\(Double(Int(value * 10)) / 10) MiB"
    }
}
