/// The JPEG markers the decoder tells apart (ITU T.81 table B.1), by name rather than hex.
enum JPEGMarker {
    /// The byte every marker starts with; in entropy-coded data it is followed by a stuffed 0.
    static let prefix: UInt8 = 0xFF
    static let startOfImage: UInt8 = 0xD8
    static let endOfImage: UInt8 = 0xD9
    static let startOfScan: UInt8 = 0xDA
    static let quantisationTables: UInt8 = 0xDB
    static let numberOfLines: UInt8 = 0xDC
    static let restartInterval: UInt8 = 0xDD
    static let huffmanTables: UInt8 = 0xC4
    static let arithmeticConditioning: UInt8 = 0xCC
    static let baseline: UInt8 = 0xC0
    static let extendedSequential: UInt8 = 0xC1
    static let progressiveHuffman: UInt8 = 0xC2
    static let lossless: UInt8 = 0xC3
    static let differentialProgressive: UInt8 = 0xC6
    /// JPG: reserved for extensions, not a frame.
    static let extensions: UInt8 = 0xC8
    static let extendedArithmetic: UInt8 = 0xC9
    static let progressiveArithmetic: UInt8 = 0xCA
    static let losslessArithmetic: UInt8 = 0xCB
    static let differentialProgressiveArithmetic: UInt8 = 0xCE
    /// Every SOFn and the three markers that share their range.
    static let frameRange: ClosedRange<UInt8> = 0xC0...0xCF
    static let comment: UInt8 = 0xFE
    /// TEM: a marker without a length, like the restart markers.
    static let temporary: UInt8 = 0x01
    static let restarts: ClosedRange<UInt8> = 0xD0...0xD7
    static let applications: ClosedRange<UInt8> = 0xE0...0xEF
    static let adobe: UInt8 = 0xEE

    /// Start-of-frame markers: C0…CF but for DHT (C4), JPG (C8) and DAC (CC).
    static func isFrame(_ marker: UInt8) -> Bool {
        frameRange.contains(marker) && ![huffmanTables, extensions, arithmeticConditioning].contains(marker)
    }

    /// The frame types whose scans are progressive (Huffman or arithmetic, sequential differential or not).
    static func isProgressiveFrame(_ marker: UInt8) -> Bool {
        [progressiveHuffman, differentialProgressive, progressiveArithmetic, differentialProgressiveArithmetic].contains(marker)
    }

    /// What the frame marker says, for messages.
    static func frameName(_ marker: UInt8) -> String {
        switch marker {
        case baseline: return "baseline"
        case extendedSequential: return "extended sequential"
        case progressiveHuffman: return "progressive"
        case lossless: return "lossless"
        case progressiveArithmetic: return "progressive arithmetic-coded"
        case extendedArithmetic, losslessArithmetic: return "arithmetic-coded"
        default: return "hierarchical or lossless"
        }
    }
}
