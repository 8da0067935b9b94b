import CVips
import WorkbenchCore
import WorkbenchKernels

/// `sepia`: a sepia tone, the identity blended with the classic sepia matrix by `intensity`.
struct SepiaStage: Stage {
    static let spec = OpSpec(
        name: "sepia", summary: "Tones the image sepia (like Core Image's CISepiaTone).",
        input: .image, output: .image, defaultQueue: "cpu", execution: .cpu,
        parameters: [
            ParameterSpec("intensity", .double(0...1), default: .double(1), "0 leaves the image as it is, 1 is full sepia."),
        ], readsSequentially: true)

    static let definition = OpDefinition(spec) { p in SepiaStage(intensity: p.double("intensity") ?? 1) }

    let intensity: Double

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        .image(try VipsStages.image(inputs, context).applyingColourMatrix(.sepia(intensity: intensity)))
    }
}

/// The ops this module provides, and what their stages share.
public enum VipsStages {
    /// Every libvips operation as `vips.<nickname>`, then the built-in stages and friendly filters.
    public static let all: [OpDefinition] = VipsOperationOps.all + [
        DecodeStage.definition, EncodeStage.definition, SepiaStage.definition,
    ] + ResizeStage.definitions + GeometryFilters.all + ToneFilters.all + DetailFilters.all + WatermarkFilter.all

    /// The libvips version this build runs with.
    public static var libvipsVersion: String { VipsRuntime.version }

    static func image(_ inputs: StageInputs, _ context: StageContext) throws -> VipsImage {
        guard case .image(let handle)? = inputs.first, let image = handle as? VipsImage else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "a libvips image")
        }
        return image
    }
}
