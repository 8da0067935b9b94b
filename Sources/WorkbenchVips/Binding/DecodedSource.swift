import CVips
import WorkbenchCore
import WorkbenchJPEG

/// How `decode` turns bytes into an image; kept with the image (its origin), so that damage
/// found later can be traced, and a resize fused with the decode can redo it as one
/// shrink-on-load step.
struct DecodeOptions: Sendable {
    /// How much damage fails the decode, by libvips' names for its `VipsFailOn` levels.
    enum FailOn: String, CaseIterable, Sendable {
        case none, truncated, error, warning

        var level: VipsFailOn {
            switch self {
            case .none: return VIPS_FAIL_ON_NONE
            case .truncated: return VIPS_FAIL_ON_TRUNCATED
            case .error: return VIPS_FAIL_ON_ERROR
            case .warning: return VIPS_FAIL_ON_WARNING
            }
        }
    }

    var failOn: FailOn
    /// Stream top to bottom (little memory) instead of decoding for random access.
    var sequential: Bool
    var maxPixels: Int
    /// Pages of a multi-page image (animated GIF/WebP, TIFF, HEIF): 1 (the first) or -1 (all,
    /// stacked vertically with `page-height` set, which the GIF and WebP savers write as animation).
    var pages: Int
    /// Turn the image upright by its EXIF orientation.
    var autorotate: Bool
    /// Convert colour images to 8-bit sRGB (through their ICC profile when they have one) and
    /// grey ones to 8-bit grey; false keeps the image as loaded.
    var toSRGB: Bool
    /// The most memory, in bytes, one JPEG decode may take for its coefficients: libjpeg holds
    /// every coefficient of a progressive JPEG, our decoder those its scale needs.
    var maxMemory = ProgressiveJPEG.defaultMemoryLimit
    /// The most scans a JPEG may have (each is a pass over the image for any decoder).
    var maxScans = DecodeOptions.defaultMaxScans

    /// A progressive JPEG from a camera, an editor or jpegtran has about 10 scans; a valid file
    /// can have thousands, each a pass over the whole image. 500 leaves room for any encoder.
    static let defaultMaxScans = 500
}

/// The bytes and settings an image was decoded from.
struct DecodedSource: Sendable {
    let bytes: Bytes
    let options: DecodeOptions
    /// A colour image with an ICC profile, which the sRGB conversion went through.
    let colourManaged: Bool
    /// The EXIF orientation that was applied (1: none).
    let orientation: Int
    /// The stored size, before any turning.
    let storedWidth: Int
    let storedHeight: Int
    /// The id of the `decode` node, which damage found later is blamed on.
    let node: String
    /// The JPEG DCT scale the pixels were decoded at (shrink-on-load), so that a check for damage
    /// decodes them the same way: libjpeg notices some damage at one scale and not another.
    var jpegShrink = 1
    /// The pixels came from our PNG decoder (`PNGDecoder`), not libpng.
    var decodedByPNGDecoder = false
    /// …and reduced by `Resampler.reducePremultiplied`, not libvips' thumbnail.
    var reducedPremultiplied = false
    /// A JPEG's pixels from our progressive decoder, reduced by `Resampler.reduceAsLibvips`
    /// rather than libvips' thumbnail.
    var reducedByOurPasses = false
    /// Why our PNG decoder left the file to libpng, when it did.
    var pngDeclined: String?
}
