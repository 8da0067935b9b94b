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
    static let progressiveHuffman: UInt8 = 0xC2
    static let progressiveArithmetic: UInt8 = 0xCA
    static let comment: UInt8 = 0xFE
    /// TEM: a marker without a length, like the restart markers.
    static let temporary: UInt8 = 0x01
    static let restarts: ClosedRange<UInt8> = 0xD0...0xD7
    static let applications: ClosedRange<UInt8> = 0xE0...0xEF
    static let adobe: UInt8 = 0xEE

    /// Start-of-frame markers: C0…CF but for DHT (C4), JPG (C8) and DAC (CC).
    static func isFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && ![huffmanTables, 0xC8, arithmeticConditioning].contains(marker)
    }

    /// The frame types whose scans are progressive (Huffman or arithmetic, sequential differential or not).
    static func isProgressiveFrame(_ marker: UInt8) -> Bool { [0xC2, 0xC6, 0xCA, 0xCE].contains(marker) }

    /// What the frame marker says, for messages.
    static func frameName(_ marker: UInt8) -> String {
        switch marker {
        case 0xC0: return "baseline"
        case 0xC1: return "extended sequential"
        case 0xC2: return "progressive"
        case 0xC3: return "lossless"
        case progressiveArithmetic: return "progressive arithmetic-coded"
        case 0xC9, 0xCB: return "arithmetic-coded"
        default: return "hierarchical or lossless"
        }
    }
}
