import WorkbenchCore

/// The ops this module provides: the catalogue a registry reads.
public enum VipsStages {
    /// Every libvips operation as `vips.<nickname>`, then the built-in stages and friendly filters.
    public static let all: [OpDefinition] = VipsOperationOps.all + [
        DecodeStage.definition, EncodeStage.definition,
    ] + ResizeStage.definitions + GeometryFilters.all + DetailFilters.all + WatermarkFilter.all
        + ToneKernelFilters.all + ColourKernelFilters.all + PositionKernelFilters.all + AreaKernelFilters.all

    /// The names of `all` that are not `vips.*`, known without starting libvips.
    static let builtInNames: Set<String> = [
        "decode", "encode", "sepia", "thumbnail", "resize", "crop", "rotate", "flip", "blur", "sharpen", "grayscale",
        "brightness", "contrast", "saturation", "gamma", "tint", "watermark", "composite",
        "invert", "levels", "curves", "posterize", "solarize", "channelMixer", "duotone", "threshold",
        "vignette", "grain", "boxBlur", "pixelate", "median", "convolve",
    ]

    private static let byName = Dictionary(all.map { ($0.spec.name, $0) }, uniquingKeysWith: { $1 })

    /// The module's ops for an `OpRegistry`, built (and libvips started) only when a preset
    /// names one of them, or when all are listed.
    public static let provider = OpProvider(
        claims: { $0.hasPrefix("vips.") || builtInNames.contains($0) },
        names: { all.map(\.spec.name) },
        definition: { byName[$0] },
        unavailable: { VipsOperationOps.unavailable })

    /// The libvips version this build runs with.
    public static var libvipsVersion: String { VipsRuntime.version }
}
