import Foundation
import Synchronization
import WorkbenchCore
import WorkbenchDirect
import WorkbenchKernels

/// Where the last searches of each output width of one encode node ended, and the slope they
/// measured: the next photo's search starts at the median of the last five answers and steps
/// by the slope (photos of one catalogue at one size tend to need similar settings; the median
/// keeps one odd photo from moving the start, and photos finish out of order on the workers).
final class QualityAnswers: Sendable {
    struct Start { var quality: Int; var slope: Double? }
    private struct History { var qualities: [Int] = []; var slope: Double? }
    private let table = Mutex<[Int: History]>([:])
    static let remembered = 5

    func start(forWidth width: Int) -> Start? {
        table.withLock { table in
            guard let history = table[width], !history.qualities.isEmpty else { return nil }
            let sorted = history.qualities.sorted()
            return Start(quality: sorted[(sorted.count - 1) / 2], slope: history.slope)
        }
    }

    /// The slope is kept as a running mean of what searches measure: one photo's is noisy.
    func record(_ answer: QualitySearch.Answer, forWidth width: Int) {
        table.withLock { table in
            var history = table[width] ?? History()
            history.qualities = Array((history.qualities + [answer.chosen.quality]).suffix(Self.remembered))
            if let measured = answer.slope { history.slope = history.slope.map { ($0 + measured) / 2 } ?? measured }
            table[width] = history
        }
    }
}

/// An image's pixels as SSIMULACRA2 reads them (8-bit sRGB), prepared once to score candidates.
struct PixelScorer: Sendable {
    let metric: SSIMULACRA2

    /// `background`: for a format without alpha, what its saver flattens the image onto, so
    /// the original is compared as the file will show it. `inSRGB`: for candidates that read back
    /// in sRGB whatever their profile (JPEG XL), an image with another profile is converted first.
    init(_ image: VipsImage, flattenedOnto background: VipsArgumentValue?, inSRGB: Bool = false) throws {
        var image = image
        if let background, image.hasAlpha { image = try VipsOperationCall.image("flatten", image, ["background": background]) }
        if inSRGB, let profile = image.iccProfile, !ColourProfile.describesSRGB(profile) {
            image = try VipsOperationCall.image("icc_transform", image, ["output_profile": .string("srgb"), "embedded": .bool(true)])
        }
        let (bytes, width, height, bands) = try Self.pixels(image)
        try self.init(bytes, width: width, height: height, bands: bands)
    }

    /// 8-bit sRGB pixels, grey or RGB (with alpha or not).
    init(_ bytes: [UInt8], width: Int, height: Int, bands: Int) throws {
        metric = try bytes.withUnsafeBytes { try SSIMULACRA2(original: .init(bytes: $0, width: width, height: height, bands: bands)) }
    }

    /// The score of an encoded file (`decoded`).
    func score(of data: Data, format: String? = nil, origin: String) throws -> Double {
        try score(Self.decoded(data, format: format, origin: origin))
    }

    /// The score of 8-bit pixels of the original's size.
    func score(_ pixels: (bytes: [UInt8], width: Int, height: Int, bands: Int)) throws -> Double {
        try pixels.bytes.withUnsafeBytes { try metric.score(.init(bytes: $0, width: pixels.width, height: pixels.height, bands: pixels.bands)) }
    }

    /// An encoded file's pixels as the metric reads them. JPEG and WebP are decoded by libjpeg
    /// and libwebp straight to the pixels libvips would give (a third of a candidate's cost,
    /// through libvips); JPEG XL by libjxl, in sRGB; other formats, and files those cannot take,
    /// by libvips.
    static func decoded(_ data: Data, format: String?, origin: String) throws -> (bytes: [UInt8], width: Int, height: Int, bands: Int) {
        if format == "jxl" {
            let image: PixelImage
            do { image = try JXLCodec.decodeSRGB(data) } catch { throw VipsError.decodeFailed(origin: origin, message: "\(error)") }
            return (image.pixels, image.width, image.height, image.bands)
        }
        if let image = decodedDirectly(data, format: format) { return (image.pixels, image.width, image.height, image.bands) }
        return try pixels(try VipsImage.decode(data, origin: origin))
    }

    /// Grey or YCbCr JPEGs (libvips' loader also reads them with libjpeg's defaults, to RGB) and
    /// still WebPs; nil for the rest, CMYK JPEGs among them.
    private static func decodedDirectly(_ data: Data, format: String?) -> PixelImage? {
        switch format {
        case "jpeg":
            guard let header = JPEGCodec.header(data), header.colourSpace == 1 || header.colourSpace == 3 else { return nil }
            // A warning from libjpeg: let libvips decode it and say what is wrong.
            return try? JPEGCodec.decode(data, header: header, shrink: 1)
        case "webp": return WebPCodec.decode(data)
        default: return nil
        }
    }

    /// 8-bit sRGB, with its alpha if it has one.
    static func pixels(_ image: VipsImage) throws -> (bytes: [UInt8], width: Int, height: Int, bands: Int) {
        try image.srgbBytes(origin: image.origin?.node ?? "image")
    }
}

/// `encode` with a `"target"`: the quality setting searched for each output (`QualitySearch`),
/// each candidate encoded from the same pixels, decoded and scored against them; the file kept is
/// the answer's, and nothing is written before it is chosen.
extension EncodeStage {
    /// `pixels`: the image before this node's metadata changes, the same object for every encode
    /// of it, so they share one prepared original.
    func encode(_ image: VipsImage, pixelsOf pixels: VipsImage, toward target: EncodeTarget, options: [String: VipsArgumentValue],
                context: StageContext) throws -> (data: Data, warnings: [String]) {
        // Computed once: every candidate encodes the same pixels.
        let (source, warnings) = try image.inMemory(cancellation: context.cancellation)
        // A format without alpha is scored as its saver flattens the image.
        let background = format.keepsAlpha || !source.hasAlpha ? nil : options["background"]
        let inSRGB = format.name == "jxl"
        let data = try search(toward: target, width: source.width, height: source.height, context: context, scorer: {
            try PreparedOriginals.shared.slot(for: pixels, background: background, inSRGB: inSRGB).scorer {
                try PixelScorer(source, flattenedOnto: background, inSRGB: inSRGB)
            }
        }, encoded: { quality in
            var candidate = options
            candidate[Self.qualityName] = .int(quality)
            return try source.encode(format, options: candidate, cancellation: context.cancellation).data
        })
        return (data, warnings)
    }

    /// A quality target on the direct path: the thumbnail's RGB pixels as the one libvips image
    /// of the photo (`DirectImage.vipsImage`, sRGB), searched as on libvips' path.
    func encodeDirect(_ direct: DirectImage, toward target: EncodeTarget, context: StageContext) throws -> Payload {
        guard let image = direct.vipsImage() else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "RGB pixels for a quality target (the plan decodes RGB for a tree with one)")
        }
        let (data, _) = try encode(image, pixelsOf: image, toward: target, options: options, context: context)
        return .bytes(Bytes(data, origin: context.item.source, image: EncodedImage(width: image.width, height: image.height, format: format.name)))
    }

    /// Runs the search with `encoded` making each candidate; records what it chose. The original
    /// is prepared after the first candidate is made: another encode of the same image may be
    /// preparing it meanwhile (`PreparedOriginals`), and this one need not wait idle for it.
    private func search(toward target: EncodeTarget, width: Int, height: Int, context: StageContext, scorer makeScorer: () throws -> PixelScorer,
                        encoded: (Int) throws -> Data) throws -> Data {
        if target.score != nil, min(width, height) < SSIMULACRA2.smallestSide {
            // Nothing to score: the best the range allows.
            let data = try encoded(target.maxQ)
            context.recordMeasurement([.init("Q", Double(target.maxQ)), .init("bytes", Double(data.count)), .init("encodes", 1)],
                                      words: "Q \(target.maxQ): \(width)×\(height) is too small for SSIMULACRA2 (\(SSIMULACRA2.smallestSide)×\(SSIMULACRA2.smallestSide) at least), so the target's highest quality")
            return data
        }
        var scorer: PixelScorer?
        var made: [Int: Data] = [:]
        let last = answers.start(forWidth: width)
        let answer = try QualitySearch(target: target, jump: Self.chromaJump(format: format.name, options: options)).run(start: last?.quality, slope: last?.slope) { quality in
            if context.cancellation.isCancelled { throw WorkbenchError.cancelled }
            let data = try encoded(quality)
            made[quality] = data
            if target.score != nil, scorer == nil { scorer = try makeScorer() }
            return QualitySearch.Trial(quality: quality, bytes: data.count,
                                       score: try scorer?.score(of: data, format: format.name, origin: "\(context.nodeID) at Q \(quality)"))
        }
        answers.record(answer, forWidth: width)
        context.recordMeasurement(Self.values(of: answer), words: Self.words(for: answer, target: target))
        if !answer.met {
            // Said on the item's line too, not only with --verbose: the file is not what was asked.
            let score = answer.chosen.score.map { String(format: ", SSIMULACRA2 %.2f", $0) } ?? ""
            context.warn("\(target.description) not reached between Q \(target.minQ) and \(target.maxQ): kept Q \(answer.chosen.quality)\(score), \(answer.chosen.bytes) bytes")
        }
        guard let data = made[answer.chosen.quality] else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "an encode at the chosen quality")
        }
        return data
    }

    /// The quality at which libvips' saver stops subsampling chroma, and the score leaps: 90 for
    /// JPEG (jpegsave) and AVIF (heifsave: 4:4:4 from Q 90, 4:2:0 below) unless the node sets
    /// `subsample_mode`; nil for the rest (lossy WebP is always 4:2:0, JPEG XL never).
    static func chromaJump(format: String, options: [String: VipsArgumentValue]) -> Int? {
        guard format == "jpeg" || format == "avif", options["subsample_mode"] == nil, options["subsample-mode"] == nil else { return nil }
        return 90
    }

    static func values(of answer: QualitySearch.Answer) -> [NodeMeasurement.Value] {
        var values: [NodeMeasurement.Value] = [.init("Q", Double(answer.chosen.quality))]
        if let score = answer.chosen.score { values.append(.init("ssimulacra2", (score * 100).rounded() / 100)) }
        values += [.init("bytes", Double(answer.chosen.bytes)), .init("encodes", Double(answer.trials.count)), .init("met", answer.met ? 1 : 0)]
        return values
    }

    /// "Q 62: SSIMULACRA2 80.41, 12.3 KiB (4 encodes: Q 75 84.10, Q 66 81.23, …)".
    static func words(for answer: QualitySearch.Answer, target: EncodeTarget) -> String {
        func said(_ t: QualitySearch.Trial) -> String {
            "Q \(t.quality) " + (t.score.map { String(format: "%.2f", $0) } ?? "\(t.bytes) bytes")
        }
        let chosen = answer.chosen
        let score = chosen.score.map { String(format: "SSIMULACRA2 %.2f, ", $0) } ?? ""
        let missed = answer.met ? "" : " — \(target.description) not reached between Q \(target.minQ) and \(target.maxQ)"
        return "Q \(chosen.quality): \(score)\(chosen.bytes) bytes (\(answer.trials.count) \(answer.trials.count == 1 ? "encode" : "encodes"): \(answer.trials.map(said).joined(separator: ", ")))\(missed)"
    }
}
