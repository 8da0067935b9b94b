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
            VipsStages.engineParameter,
        ], readsSequentially: true)

    static let definition = OpDefinition(spec) { p in
        SepiaStage(intensity: p.double("intensity") ?? 1, engine: ColourEngine(rawValue: p.string("engine") ?? "") ?? .swift)
    }

    let intensity: Double
    let engine: ColourEngine

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        .image(try VipsStages.image(inputs, context).applyingColourMatrix(.sepia(intensity: intensity), engine: engine))
    }
}

/// The ops this module provides, and what their stages share.
public enum VipsStages {
    /// Every libvips operation as `vips.<nickname>`, then the built-in stages and friendly filters.
    public static let all: [OpDefinition] = VipsOperationOps.all + [
        DecodeStage.definition, EncodeStage.definition, SepiaStage.definition,
    ] + ResizeStage.definitions + GeometryFilters.all + ToneFilters.all + DetailFilters.all + WatermarkFilter.all

    /// The `engine` parameter of filters that have a Swift kernel.
    static let engineParameter = ParameterSpec(
        "engine", .choice(ColourEngine.allCases.map(\.rawValue)), default: .string("swift"),
        "\"swift\": a fixed-point Swift kernel streaming inside libvips (8-bit images); \"vips\": libvips' recomb in floating point. They differ by at most 1.")

    /// The libvips version this build runs with.
    public static var libvipsVersion: String { VipsRuntime.version }

    static func image(_ inputs: StageInputs, _ context: StageContext) throws -> VipsImage {
        guard case .image(let handle)? = inputs.first, let image = handle as? VipsImage else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "a libvips image")
        }
        return image
    }
}
