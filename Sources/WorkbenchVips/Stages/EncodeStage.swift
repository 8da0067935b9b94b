import WorkbenchCore

/// `encode`: evaluates the image pipeline and encodes it as JPEG, PNG or WebP.
struct EncodeStage: Stage {
    static let spec = OpSpec(
        name: "encode", summary: "Evaluates the image and encodes it.",
        input: .image, output: .bytes, defaultQueue: "cpu", execution: .cpu,
        parameters: [
            ParameterSpec("format", .choice(EncodeFormat.allCases.map(\.rawValue)), required: true, "Output format."),
            ParameterSpec("Q", .int(1...100), default: .int(75), aliases: ["quality"], "JPEG and WebP quality."),
            ParameterSpec("strip", .bool, default: .bool(false), "Drop metadata (EXIF, XMP, ICC profile)."),
            ParameterSpec("lossless", .bool, default: .bool(false), "WebP: encode losslessly."),
            ParameterSpec("compression", .int(0...9), default: .int(6), "PNG: zlib compression level."),
        ], readsSequentially: true)

    static let definition = OpDefinition(spec) { p in
        EncodeStage(options: EncodeOptions(
            format: EncodeFormat(rawValue: p.string("format") ?? "jpeg") ?? .jpeg,
            quality: p.int("Q") ?? 75, strip: p.bool("strip") ?? false,
            lossless: p.bool("lossless") ?? false, compression: p.int("compression") ?? 6))
    }

    let options: EncodeOptions

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        let image = try VipsStages.image(inputs, context)
        let data = try image.encode(options, cancellation: context.cancellation)
        return .bytes(Bytes(data, origin: context.item.source))
    }
}
