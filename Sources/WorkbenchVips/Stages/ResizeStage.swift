import WorkbenchCore

/// `resize`: scales the image by a factor with libvips' `resize`.
struct ResizeStage: Stage {
    static let spec = OpSpec(
        name: "resize", summary: "Scales the image by a factor (0.5 halves it).",
        input: .image, output: .image, defaultQueue: "cpu", execution: .cpu,
        parameters: [
            ParameterSpec("scale", .double(0.0001...100), required: true, "Scale factor for both axes."),
        ])

    static let definition = OpDefinition(spec) { p in ResizeStage(scale: p.double("scale") ?? 1) }

    let scale: Double

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        .image(try VipsStages.image(inputs, context).resize(scale: scale))
    }
}
