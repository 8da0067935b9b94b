import Foundation
import WorkbenchCore
import WorkbenchDirect

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
        let jxl = bytes.image?.format == "jxl" || Self.isJPEGXL(bytes.data)
        let size: (width: Int, height: Int, alpha: Bool)
        if jxl {
            let image: PixelImage
            do { image = try JXLCodec.decodeSRGB(bytes.data) } catch { throw VipsError.decodeFailed(origin: origin, message: "\(error)") }
            size = (image.width, image.height, image.bands == 2 || image.bands == 4)
        } else {
            let candidate = try VipsImage.decode(bytes.data, origin: origin)
            size = (candidate.width, candidate.height, candidate.hasAlpha)
        }
        guard (size.width, size.height) == (original.width, original.height) else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID,
                expected: "a file the size of \"against\" (\(original.width)×\(original.height)), not \(size.width)×\(size.height): measure an encode against the image it encoded")
        }
        // A file without alpha is compared with the original as its saver flattened it (white).
        let background: VipsArgumentValue? = size.alpha ? nil : .doubles([original.whiteValue])
        let (pixels, _) = try original.inMemory(cancellation: context.cancellation)
        let score = try PixelScorer(pixels, flattenedOnto: background, inSRGB: jxl)
            .score(of: bytes.data, format: jxl ? "jxl" : nil, origin: origin)
        context.recordMeasurement([.init("ssimulacra2", (score * 100).rounded() / 100), .init("bytes", Double(bytes.data.count))],
                                  words: String(format: "SSIMULACRA2 %.2f, %d bytes", score, bytes.data.count))
        return .bytes(bytes)
    }

    /// A JPEG XL codestream (FF 0A) or container (its signature box).
    static func isJPEGXL(_ data: Data) -> Bool {
        data.starts(with: [0xFF, 0x0A]) || data.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
    }
}
