/// What stopped a scan's entropy-coded data from decoding, found where the bits were read;
/// `ProgressiveScan.decode` turns it into the refusal, with these words and this reason.
enum EntropyFault: UInt8 {
    /// No Huffman code of the scan's table matches the next bits.
    case badHuffmanCode
    /// A DC difference of more than 11 bits (a table no encoder makes).
    case dcCategory
    /// A DC value that leaves the 32-bit range libjpeg keeps it in.
    case dcOutOfRange
    /// The restart marker due at an interval's end is not there.
    case missingRestart
    /// A run of zeros that goes past the scan's last coefficient.
    case runPastBand
    /// A refinement's new coefficient of more than one bit.
    case badCorrectionBit
    /// A component of the scan with no table (or no room) to decode into.
    case missingTable

    var reason: ProgressiveRefusal.Reason {
        switch self {
        case .badHuffmanCode, .dcCategory: .corruptData
        case .dcOutOfRange: .dcRange
        case .missingRestart: .missingRestart
        case .runPastBand: .runPastBand
        case .badCorrectionBit: .correctionBit
        case .missingTable: .undefinedHuffmanTable
        }
    }

    var words: String {
        switch self {
        case .badHuffmanCode: "its data is corrupt (bits no Huffman code of its table matches)"
        case .dcCategory: "its data is corrupt (a DC difference of more than 11 bits)"
        case .dcOutOfRange: "a DC value beyond the 32-bit range"
        case .missingRestart: "a restart marker is missing where its interval ends"
        case .runPastBand: "a run of zeros goes past the scan's last coefficient"
        case .badCorrectionBit: "a refinement places a coefficient of more than one bit"
        case .missingTable: "a component has no Huffman table to decode with"
        }
    }
}
