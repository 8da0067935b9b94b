/// Why `ProgressiveJPEG.decode` did not decode a file, with the byte offset where it was found.
///
/// `kind` says what the caller should make of it: a file libjpeg reads that this decoder leaves to
/// it, damage (libjpeg refuses it, or warns and guesses), or the memory budget.
public struct ProgressiveRefusal: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Valid, but not what this decoder reads (baseline, CMYK, 12-bit, a scale it has no IDCT for).
        case unsupported
        /// Damaged or malformed: libjpeg either refuses it or decodes it with a warning.
        case damaged
        /// Decoding would take more memory than allowed, or the memory could not be had.
        case memory
    }

    /// Every reason, each with the short, stable name it is counted and logged by
    /// (`bad-progression`, `truncated`, …); what was found is in `detail`.
    public enum Reason: String, Sendable, CaseIterable {
        case arithmeticCoding = "arithmetic-coding"
        case arithmeticConditioning = "arithmetic-conditioning"
        case badHuffmanTable = "bad-huffman-table"
        case badLength = "bad-length"
        case badProgression = "bad-progression"
        case badQuantisationTable = "bad-quantisation-table"
        case badSampling = "bad-sampling"
        case bogusProgression = "bogus-progression"
        case coefficientRange = "coefficient-range"
        case correctionBit = "correction-bit"
        case componentOrder = "component-order"
        case components = "components"
        case corruptData = "corrupt-data"
        case dcRange = "dc-range"
        case duplicateComponent = "duplicate-component"
        case duplicateFrame = "duplicate-frame"
        case duplicateSoi = "duplicate-soi"
        case emptyImage = "empty-image"
        case emptyOutput = "empty-output"
        case extraneousBytes = "extraneous-bytes"
        case fractionalSampling = "fractional-sampling"
        case geometry = "geometry"
        case hierarchical = "hierarchical"
        case incompleteScans = "incomplete-scans"
        case mcuTooLarge = "mcu-too-large"
        case memory = "memory"
        case missingComponent = "missing-component"
        case missingRestart = "missing-restart"
        case noFrame = "no-frame"
        case notJpeg = "not-jpeg"
        case notProgressive = "not-progressive"
        case notYcbcr = "not-ycbcr"
        case outOfMemory = "out-of-memory"
        case outOfRange = "out-of-range"
        case precision = "precision"
        case processor = "processor"
        case quantisationPrecision = "quantisation-precision"
        case runPastBand = "run-past-band"
        case scale = "scale"
        case scanBeforeFrame = "scan-before-frame"
        case shortScan = "short-scan"
        case strayBytes = "stray-bytes"
        case strayMarker = "stray-marker"
        case tooLarge = "too-large"
        case truncated = "truncated"
        case undefinedHuffmanTable = "undefined-huffman-table"
        case undefinedQuantisationTable = "undefined-quantisation-table"
        case unknownComponent = "unknown-component"
        case unknownMarker = "unknown-marker"
    }

    public let kind: Kind
    public let reason: Reason
    /// What was found, in words.
    public let detail: String
    /// Where in the file, when a place is known.
    public let offset: Int?

    init(_ kind: Kind, _ reason: Reason, _ detail: String, at offset: Int? = nil) {
        self.kind = kind
        self.reason = reason
        self.detail = detail
        self.offset = offset
    }

    public var description: String {
        offset.map { "\(detail) (at byte \($0))" } ?? detail
    }

    static func unsupported(_ reason: Reason, _ detail: String, at offset: Int? = nil) -> ProgressiveRefusal {
        ProgressiveRefusal(.unsupported, reason, detail, at: offset)
    }

    static func damaged(_ reason: Reason, _ detail: String, at offset: Int? = nil) -> ProgressiveRefusal {
        ProgressiveRefusal(.damaged, reason, detail, at: offset)
    }
}
