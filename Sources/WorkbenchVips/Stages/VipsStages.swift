import WorkbenchCore

/// The ops this module provides, and what their stages share.
public enum VipsStages {
    /// Every libvips operation as `vips.<nickname>`, then the built-in stages and friendly filters.
    public static let all: [OpDefinition] = VipsOperationOps.all + [
        DecodeStage.definition, EncodeStage.definition, SepiaStage.definition,
    ] + ResizeStage.definitions + GeometryFilters.all + ToneFilters.all + DetailFilters.all + WatermarkFilter.all

    /// The names of `all` that are not `vips.*`, known without starting libvips.
    static let builtInNames: Set<String> = [
        "decode", "encode", "sepia", "thumbnail", "resize", "crop", "rotate", "flip", "blur", "sharpen", "grayscale",
        "brightness", "contrast", "saturation", "gamma", "tint", "watermark", "composite",
    ]

    private static let byName = Dictionary(all.map { ($0.spec.name, $0) }, uniquingKeysWith: { $1 })

    /// The module's ops for an `OpRegistry`, built (and libvips started) only when a preset
    /// names one of them, or when all are listed.
    public static let provider = OpProvider(
        claims: { $0.hasPrefix("vips.") || builtInNames.contains($0) },
        names: { all.map(\.spec.name) },
        definition: { byName[$0] },
        unavailable: { VipsOperationOps.unavailable })

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
