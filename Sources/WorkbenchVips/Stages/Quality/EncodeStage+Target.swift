import Foundation
import Synchronization
import WorkbenchCore
import WorkbenchKernels

/// The last quality each output width of one encode node ended at: the next photo's search
/// starts there (photos of one catalogue at one size tend to need similar settings).
final class QualityAnswers: Sendable {
    private let last = Mutex<[Int: Int]>([:])

    func start(forWidth width: Int) -> Int? { last.withLock { $0[width] } }
    func record(_ quality: Int, forWidth width: Int) { last.withLock { $0[width] = quality } }
}

/// An image's pixels as SSIMULACRA2 reads them (8-bit sRGB), prepared once to score candidates.
struct PixelScorer {
    let metric: SSIMULACRA2

    /// `background`: for a format without alpha, what its saver flattens the image onto, so
    /// the original is compared as the file will show it.
    init(_ image: VipsImage, flattenedOnto background: VipsArgumentValue?) throws {
        var image = image
        if let background, image.hasAlpha { image = try VipsOperationCall.image("flatten", image, ["background": background]) }
        let (bytes, width, height, bands) = try Self.pixels(image)
        try self.init(bytes, width: width, height: height, bands: bands)
    }

    /// 8-bit sRGB pixels, grey or RGB (with alpha or not).
    init(_ bytes: [UInt8], width: Int, height: Int, bands: Int) throws {
        metric = try bytes.withUnsafeBytes { try SSIMULACRA2(original: .init(bytes: $0, width: width, height: height, bands: bands)) }
    }

    /// The score of an encoded file, decoded by libvips.
    func score(of data: Data, origin: String) throws -> Double {
        let (bytes, width, height, bands) = try Self.pixels(try VipsImage.decode(data, origin: origin))
        return try bytes.withUnsafeBytes { try metric.score(.init(bytes: $0, width: width, height: height, bands: bands)) }
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
    func encode(_ image: VipsImage, toward target: EncodeTarget, options: [String: VipsArgumentValue],
                context: StageContext) throws -> (data: Data, warnings: [String]) {
        // Computed once: every candidate encodes the same pixels.
        let (source, warnings) = try image.inMemory(cancellation: context.cancellation)
        let data = try search(toward: target, width: source.width, context: context, scorer: {
            try PixelScorer(source, flattenedOnto: format.keepsAlpha ? nil : options["background"])
        }, encoded: { quality in
            var candidate = options
            candidate[Self.qualityName] = .int(quality)
            return try source.encode(format, options: candidate, cancellation: context.cancellation).data
        })
        return (data, warnings)
    }

    /// Runs the search with `encoded` making each candidate; records what it chose.
    private func search(toward target: EncodeTarget, width: Int, context: StageContext, scorer makeScorer: () throws -> PixelScorer,
                        encoded: (Int) throws -> Data) throws -> Data {
        var scorer: PixelScorer?
        if target.score != nil {
            do {
                scorer = try makeScorer()
            } catch SSIMULACRA2.Refusal.tooSmall(let w, let h) {
                // Nothing to score: the best the range allows.
                let data = try encoded(target.maxQ)
                context.recordMeasurement([.init("Q", Double(target.maxQ)), .init("bytes", Double(data.count)), .init("encodes", 1)],
                                          words: "Q \(target.maxQ): \(w)×\(h) is too small for SSIMULACRA2 (8×8 at least), so the target's highest quality")
                return data
            }
        }
        var made: [Int: Data] = [:]
        let answer = try QualitySearch(target: target).run(start: answers.start(forWidth: width)) { quality in
            if context.cancellation.isCancelled { throw WorkbenchError.cancelled }
            let data = try encoded(quality)
            made[quality] = data
            return QualitySearch.Trial(quality: quality, bytes: data.count,
                                       score: try scorer?.score(of: data, origin: "\(context.nodeID) at Q \(quality)"))
        }
        answers.record(answer.chosen.quality, forWidth: width)
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
        return "Q \(chosen.quality): \(score)\(chosen.bytes) bytes (\(answer.trials.count) encodes: \(answer.trials.map(said).joined(separator: ", ")))\(missed)"
    }
}
