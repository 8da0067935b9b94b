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
