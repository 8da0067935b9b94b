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

    public let kind: Kind
    /// A short, stable name for counting (`bad-progression`, `truncated`, …).
    public let reason: String
    /// What was found, in words.
    public let detail: String
    /// Where in the file, when a place is known.
    public let offset: Int?

    init(_ kind: Kind, _ reason: String, _ detail: String, at offset: Int? = nil) {
        self.kind = kind
        self.reason = reason
        self.detail = detail
        self.offset = offset
    }

    public var description: String {
        offset.map { "\(detail) (at byte \($0))" } ?? detail
    }

    static func unsupported(_ reason: String, _ detail: String, at offset: Int? = nil) -> ProgressiveRefusal {
        ProgressiveRefusal(.unsupported, reason, detail, at: offset)
    }

    static func damaged(_ reason: String, _ detail: String, at offset: Int? = nil) -> ProgressiveRefusal {
        ProgressiveRefusal(.damaged, reason, detail, at: offset)
    }
}
