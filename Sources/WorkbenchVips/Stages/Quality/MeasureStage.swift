import Foundation
import WorkbenchCore

/// `measure`: the SSIMULACRA2 score of an encoded file against an image of the same size (the
/// pixels it was made from), recorded in the item's report; the bytes pass on unchanged, so a
/// `write` can follow. For users comparing encoders or settings themselves.
struct MeasureStage: Stage {
    struct Parameters: OpParameters {
        var against: ParameterValue?

        static let bindings: [ParameterBinding<Self>] = [
            .value("against", \.against, "The image the file is compared with, e.g. \"@resized\" (the pixels the encode was given); the same size.",
                   type: .reference(.image), .init(required: true)),
        ]
    }

    static let definition = OpDefinition(OpSpec(
        name: "measure",
        summary: "Scores an encoded file with SSIMULACRA2 against the image it was made from (\"against\": \"@resized\"): 100 identical, 90 visually lossless, 70 high quality, 50 medium. The score and the file's bytes go into the item's report (--report, --verbose); the bytes pass on to a write.",
        input: .bytes, output: .bytes, defaultQueue: "cpu", execution: .cpu,
        parameters: Parameters.specs)) { _ in MeasureStage() }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        guard case .bytes(let bytes)? = inputs.first else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "an encoded file (the bytes of an encode)")
        }
        guard let original = try StageImage(inputs.reference("against"))?.libvipsImage(context) else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "an image for \"against\"")
        }
        let origin = "\(context.nodeID)'s input"
        // JPEG XL is read back by libjxl, in sRGB (libvips' loader stays blocked as untrusted).
        let jxl = bytes.image?.format == "jxl" || FormatSniffer.isJPEGXL(bytes.data)
        let candidate = try PixelScorer.decoded(bytes.data, format: jxl ? "jxl" : bytes.image?.format, origin: origin)
        guard (candidate.width, candidate.height) == (original.width, original.height) else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID,
                expected: "a file the size of \"against\" (\(original.width)×\(original.height)), not \(candidate.width)×\(candidate.height): measure an encode against the image it encoded")
        }
        // A file without alpha is compared with the original as its saver flattened it (white).
        let hasAlpha = candidate.bands == 2 || candidate.bands == 4
        let background: VipsArgumentValue? = hasAlpha ? nil : .doubles([original.whiteValue])
        let (pixels, _) = try original.inMemory(cancellation: context.cancellation)
        let score = try PixelScorer(pixels, flattenedOnto: background, inSRGB: jxl).score(candidate)
        context.recordMeasurement([.init("ssimulacra2", (score * 100).rounded() / 100), .init("bytes", Double(bytes.data.count))],
                                  words: String(format: "SSIMULACRA2 %.2f, %d bytes", score, bytes.data.count))
        return .bytes(bytes)
    }
}
