import WorkbenchCore

/// What `encode`'s `"target"` asks for: the smallest file that reaches a SSIMULACRA2 score, the
/// best quality under a byte budget, or both (the smallest file reaching the score, unless it
/// is over the budget: then the best under it). The search tries the format's quality setting
/// between `minQ` and `maxQ`, at most `encodes` times an output (`QualitySearch`).
struct EncodeTarget: Sendable, Equatable {
    var score: Double?
    var maxBytes: Int?
    var minQ = 10
    var maxQ = 100
    var encodes = EncodeTarget.defaultEncodes
    /// Score points above the target that end the search at once: a candidate scoring within
    /// them is kept without trying lower qualities. 0 asks for the lowest quality that meets it.
    var tolerance = EncodeTarget.defaultTolerance

    /// Chosen with `bench/quality-target.sh`: the search's answer rarely moves after this many.
    static let defaultEncodes = 6
    /// Chosen with `bench/quality-target.sh`: about a third fewer encodes than 0, for files
    /// about 2% larger.
    static let defaultTolerance = 1.5

    /// What a search holds besides the saver, for the run's memory check: the pixels in memory
    /// and a decoded candidate (8-bit, about 4 bytes a pixel each, and their copies for the
    /// metric), and SSIMULACRA2's float planes over six scales — the original's XYB, means and
    /// squares, the candidate's levels and four working planes — about 100 bytes a pixel.
    static func heldBytes(pixels: Int) -> Int { 112 * pixels }

    /// The formats whose quality setting is searched: those with libvips' `Q`. JPEG XL's
    /// candidates are read back by libjxl (libvips' JPEG XL loader stays blocked as untrusted).
    static let formats = ["jpeg", "webp", "avif", "heif", "jxl"]

    static let fields: [OptionField] = [
        OptionField("ssimulacra2", .double(0...100)),
        OptionField("maxBytes", .int(1...Int(Int32.max))),
        OptionField("minQ", .int(1...100)),
        OptionField("maxQ", .int(1...100)),
        OptionField("encodes", .int(2...30)),
        OptionField("tolerance", .double(0...20)),
    ]

    static let summary = "Encode each output at the quality setting that meets a target instead of a fixed Q: {\"ssimulacra2\": 80} the smallest file scoring at least 80 (SSIMULACRA2 against the pixels the encode was given: 90 is visually lossless, 70 high quality, 50 medium), {\"maxBytes\": 50000} the best quality within 50,000 bytes, or both (the smallest meeting the score, else the best within the budget). \"minQ\" and \"maxQ\" bound the search (10…100), \"encodes\" the tries an output (default \(defaultEncodes)), \"tolerance\" the points above the score at which a try is kept at once (default \(ParameterType.format(defaultTolerance)); 0 finds the lowest quality that meets it). JPEG, WebP, AVIF and JPEG XL; an example: Presets/quality-target.json (docs/quality.md)."

    /// No goal yet: set `score`, `maxBytes` or both.
    init() {}

    /// The target a parameter value gives, or nil for none.
    init?(_ value: ParameterValue?) {
        guard let value, !value.pairs.isEmpty else { return nil }
        for (name, v) in value.pairs {
            switch (name, v) {
            case ("ssimulacra2", .double(let d)): score = d
            case ("ssimulacra2", .int(let i)): score = Double(i)
            case ("maxBytes", .int(let i)): maxBytes = i
            case ("minQ", .int(let i)): minQ = i
            case ("maxQ", .int(let i)): maxQ = i
            case ("encodes", .int(let i)): encodes = i
            case ("tolerance", .double(let d)): tolerance = d
            case ("tolerance", .int(let i)): tolerance = Double(i)
            default: break
            }
        }
    }

    /// What is wrong with it for `format`, given the saver options the copy sets, or nil.
    func problem(format: String?, saver: [String: ParameterValue]) -> String? {
        if score == nil && maxBytes == nil { return "\"target\" needs \"ssimulacra2\", \"maxBytes\" or both, e.g. {\"ssimulacra2\": 80}" }
        if minQ > maxQ { return "\"target\": \"minQ\" (\(minQ)) is above \"maxQ\" (\(maxQ))" }
        if let format, !Self.formats.contains(format) {
            return "\"target\" is for JPEG, WebP, AVIF and JPEG XL: \(format) has no quality setting to search"
        }
        if saver["Q"] != nil { return "give \"Q\" or \"target\", not both: the target chooses Q (bound it with \"minQ\" and \"maxQ\")" }
        // Settings that make Q mean nothing: every candidate would be the same file.
        for name in ["lossless", "near_lossless", "near-lossless"] where saver[name] == .bool(true) {
            return "\"\(name)\": true has no quality to search: drop it or the target"
        }
        if format == "jxl", saver["distance"] != nil {
            return "give \"distance\" or \"target\", not both: the target chooses Q, and JPEG XL's distance follows from it"
        }
        return nil
    }

    /// "SSIMULACRA2 ≥ 80", "≤ 50000 bytes", both.
    var description: String {
        [score.map { "SSIMULACRA2 ≥ \(ParameterType.format($0))" }, maxBytes.map { "≤ \($0) bytes" }].compactMap { $0 }.joined(separator: ", ")
    }
}
