import WorkbenchCore

/// `vips.thumbnail_image`: libvips' high-quality downsizer to fit a width (and height).
struct ThumbnailImageStage: Stage {
    /// libvips' convention for "no height limit" (pyvips passes the same value).
    static let unboundedHeight = 10_000_000

    static let spec = OpSpec(
        name: "vips.thumbnail_image", summary: "Resizes to fit inside width × height, keeping the aspect ratio.",
        input: .image, output: .image, defaultQueue: "cpu", execution: .cpu,
        parameters: [
            ParameterSpec("width", .int(1...10_000_000), required: true, "Target width in pixels."),
            ParameterSpec("height", .int(1...10_000_000), "Target height in pixels; without it only the width is fitted."),
        ])

    static let definition = OpDefinition(spec) { p in
        ThumbnailImageStage(width: p.int("width") ?? 1, height: p.int("height") ?? unboundedHeight)
    }

    let width: Int
    let height: Int

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        .image(try VipsStages.image(inputs, context).thumbnail(width: width, height: height))
    }
}
