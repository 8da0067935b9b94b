import WorkbenchCore

/// The ops this module provides: the catalogue a registry reads.
public enum VipsOps {
    /// Every libvips operation as `vips.<nickname>`, then the built-in stages and friendly
    /// filters; listing them loads every libvips module.
    public static var all: [OpDefinition] {
        VipsOperationOps.all + [OpenStage.definition, EncodeStage.definition] + friendly
    }

    /// The built-in stages and friendly filters whose declarations never change (not `encode`,
    /// whose options are those of the savers loaded).
    private static let friendly: [OpDefinition] = ResizeStage.definitions + GeometryFilters.all + DetailFilters.all
        + WatermarkFilter.all + ToneKernelFilters.all + ColourKernelFilters.all + PositionKernelFilters.all + AreaKernelFilters.all
        + [PictureStage.definition, PictureIndexStage.definition, MeasureStage.definition]

    /// The names of `all` that are not `vips.*`, known without starting libvips.
    static let builtInNames: Set<String> = [
        "decode", "encode", "sepia", "thumbnail", "resize", "crop", "rotate", "flip", "blur", "sharpen", "grayscale",
        "brightness", "contrast", "saturation", "gamma", "tint", "watermark", "composite",
        "invert", "levels", "curves", "posterize", "solarize", "channelMixer", "duotone", "threshold",
        "vignette", "grain", "boxBlur", "pixelate", "median", "convolve", "picture", "pictures", "measure",
    ]

    private static let byName = Dictionary(([OpenStage.definition] + friendly).map { ($0.spec.name, $0) }, uniquingKeysWith: { $1 })

    /// The module's ops for an `OpRegistry`, each built (and libvips started) when a preset
    /// names it; every one when all are listed.
    public static let provider = OpProvider(
        claims: { $0.hasPrefix("vips.") || builtInNames.contains($0) },
        names: { all.map(\.spec.name) },
        definition: { name in
            if name.hasPrefix("vips.") { return VipsOperationOps.definition(named: name) }
            return name == "encode" ? EncodeStage.definition : byName[name]
        },
        unavailable: { VipsOperationOps.unavailable },
        prepare: { name, words in
            // The module of a vips.* operation, HEIF's for AVIF and HEIF files and JXL's for JPEG XL:
            // `encode` then declares that saver's options too.
            if name.hasPrefix("vips.") {
                VipsModules.load(forOperation: String(name.dropFirst("vips.".count)))
            } else if name == "encode" {
                if words.contains(where: { $0 == "avif" || $0 == "heif" }) { VipsModules.load("heif") }
                if words.contains("jxl") { VipsModules.load("jxl") }
            }
        },
        everything: { VipsModules.loadAll() })

    /// Why libvips did not start, or why modules tried so far did not load ("libvips module heif
    /// did not load: …"); empty when all did. A listing of ops made without one lacks its
    /// formats, and without libvips every libvips op.
    public static var moduleFailures: [String] {
        (VipsRuntime.startFailure.map { ["libvips did not start (\($0)): no libvips operation is available"] } ?? []) + VipsModules.failures
    }

    /// The libvips version this build runs with.
    public static var libvipsVersion: String { VipsRuntime.version }
}
