import CVips
import Foundation
import Logging
import WorkbenchCore
import WorkbenchDirect
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
    /// Why our PNG decoder left the file to libpng, when it did.
    var pngDeclined: String?
}

/// Decoding: loader choice, limits, orientation and colour normalisation.
enum VipsDecoding {
    /// Fails a progressive JPEG whose scans cannot hold its blocks before libjpeg decodes it
    /// whole: libjpeg would make up every missing block (100 MP of grey for a 233-byte file),
    /// which only a decode that accepts damage (`failOn` "none") asks for.
    static func checkProgressiveData(_ bytes: Bytes, _ options: DecodeOptions) throws(VipsError) {
        guard options.failOn != .none, bytes.data.withUnsafeBytes({ JPEGFrameHeader($0)?.buffersCoefficients }) == true else { return }
        let outcome = bytes.data.withUnsafeBytes { data in Result { () throws(ProgressiveRefusal) in try ProgressiveJPEG.checkStructure(data) } }
        if case .failure(let refusal) = outcome, refusal.reason == .truncated {
            throw .decodeFailed(origin: bytes.origin, message: "the progressive JPEG is cut short: \(refusal)")
        }
    }

    /// Refuses a JPEG whose decode by libjpeg would take more memory than the decode's
    /// `maxMemory` (a progressive JPEG: every coefficient of the image, whatever the scale).
    static func checkMemory(_ source: DecodedSource) throws(VipsError) {
        guard let header = source.bytes.data.withUnsafeBytes({ JPEGFrameHeader($0) }) else { return }
        let needed = header.libjpegCoefficientBytes
        guard needed <= source.options.maxMemory else {
            throw .tooMuchMemory(origin: source.bytes.origin, width: header.width, height: header.height, needed: needed, limit: source.options.maxMemory)
        }
    }

    /// Fails a JPEG of more scans than the decode allows, before any decoder reads it.
    static func checkScans(_ bytes: Bytes, _ options: DecodeOptions) throws(VipsError) {
        guard FormatSniffer.loader(for: bytes.data) == "jpegload_buffer" else { return }
        let scans = bytes.data.withUnsafeBytes { JPEGScanCount.count(in: $0, upTo: options.maxScans) }
        guard scans <= options.maxScans else { throw .tooManyScans(origin: bytes.origin, limit: options.maxScans) }
    }

    /// `deferMemoryCheck`: a resize fused with this decode decodes from the bytes itself and
    /// checks the memory it will take then (our decoder may need far less than libjpeg).
    static func decode(_ bytes: Bytes, _ options: DecodeOptions, node: String = "decode", deferMemoryCheck: Bool = false) throws(VipsError) -> VipsImage {
        guard bytes.file != nil || !bytes.data.isEmpty else {
            throw .decodeFailed(origin: bytes.origin, message: "the file is empty (0 bytes)")
        }
        var sequential = options.sequential
        let pages = try pagesArgument(bytes, options.pages)
        var image = try VipsImage.open(bytes, sequential: sequential, failOn: options.failOn.level, pages: pages)
        // The header is read before any pixel is decoded, so a bomb costs nothing.
        // All pages count: a thousand frames of a small GIF hold as much as one huge image.
        guard image.width * image.height <= options.maxPixels else {
            throw .tooManyPixels(origin: bytes.origin, width: image.width, height: image.height, limit: options.maxPixels)
        }
        let storedWidth = image.width, storedHeight = image.height
        if !deferMemoryCheck {
            try checkMemory(DecodedSource(bytes: bytes, options: options, colourManaged: false, orientation: 1, storedWidth: storedWidth,
                                          storedHeight: storedHeight, node: node))
            try checkProgressiveData(bytes, options)
        }
        // Turning an image reads it out of order: decode for random access then.
        let orientation = options.autorotate ? image.metadata(int: "orientation") ?? 1 : 1
        if orientation > 1 && sequential {
            sequential = false
            image = try VipsImage.open(bytes, sequential: false, failOn: options.failOn.level, pages: pages)
        }
        if orientation > 1 { image = try VipsOperationCall.image("autorot", image) }
        let space = image.interpretation
        let grey = space == VIPS_INTERPRETATION_B_W || space == VIPS_INTERPRETATION_GREY16
        // An sRGB image tagged with an sRGB profile needs no conversion.
        let colourManaged = !grey && ColourProfile.embedded(in: image).map {
            !(space == VIPS_INTERPRETATION_sRGB && ColourProfile.describesSRGB($0))
        } ?? false
        if options.toSRGB { image = try normalise(image, colourManaged: colourManaged) }
        return image.withOrigin(DecodedSource(bytes: bytes, options: options, colourManaged: colourManaged,
                                              orientation: orientation, storedWidth: storedWidth,
                                              storedHeight: storedHeight, node: node))
    }

    /// 8-bit sRGB for colour (ICC profiles honoured, CMYK through libvips' default CMYK profile
    /// when it has none), 8-bit grey for grey; alpha is kept.
    static func normalise(_ image: VipsImage, colourManaged: Bool = false) throws(VipsError) -> VipsImage {
        let space = image.interpretation
        let grey = space == VIPS_INTERPRETATION_B_W || space == VIPS_INTERPRETATION_GREY16
        var result = image
        if colourManaged {
            result = try VipsOperationCall.image("icc_transform", result, ["output_profile": .string("srgb"), "embedded": .bool(true),
                                                                           "intent": .string("perceptual")])
        } else if grey && space == VIPS_INTERPRETATION_GREY16 {
            result = try VipsOperationCall.image("colourspace", result, ["space": .string("b-w")])
        } else if !grey && space != VIPS_INTERPRETATION_sRGB {
            result = try VipsOperationCall.image("colourspace", result, ["space": .string("srgb")])
        }
        if result.format != VIPS_FORMAT_UCHAR {
            result = try VipsOperationCall.image("cast", result, ["format": .string("uchar")])
        }
        return result
    }

    /// The loader's `n` argument: nothing for the first page (every loader's default), -1 for
    /// all pages of a loader that has pages; single-page formats ignore the request.
    private static func pagesArgument(_ bytes: Bytes, _ pages: Int) throws(VipsError) -> Int32 {
        guard pages != 1, let loader = loaderName(bytes),
              VipsIntrospection.operation(loader)?.arguments.contains(where: { $0.name == "n" }) == true else { return 0 }
        return Int32(pages)
    }

    /// The buffer loader libvips would choose for these bytes, e.g. "gifload_buffer".
    static func loaderName(_ bytes: Bytes) -> String? {
        if let known = FormatSniffer.loader(for: bytes.data) { return known }
        VipsModules.loadAll()
        // libvips answers with the loader's type name (VipsForeignLoadNsgifBuffer), not its nickname.
        let (typeName, _) = VipsErrorLog.call(exclusive: true, {
            bytes.data.withUnsafeBytes { buffer in vips_foreign_find_load_buffer(buffer.baseAddress, buffer.count) }
        }, failed: { $0 == nil })
        guard let typeName, let nick = vips_nickname_find(g_type_from_name(typeName)) else { return nil }
        return String(cString: nick)
    }

    /// The message for bytes libvips would not open: says when a blocked untrusted loader
    /// would have read them, and how to allow it.
    static func explain(_ bytes: Bytes, message: String?) -> String {
        let base = message ?? "libvips gave no message"
        guard !VipsRuntime.untrustedOperationsAllowed else { return base }
        let advice = "blocked as untrusted: libvips does not harden that loader against hostile files; allow untrusted loaders (--allow-untrusted) only for files you trust"
        if base.contains("operation is blocked") { return "\(base) (\(advice))" }
        // ImageMagick's loader claims nearly anything, so it is no evidence.
        let candidates = VipsIntrospection.operations.values.filter {
            $0.isUntrusted && $0.nickname.hasSuffix("load_buffer") && !$0.nickname.hasPrefix("magick")
        }
        for loader in candidates.sorted(by: { $0.nickname < $1.nickname }) {
            let (recognised, _) = VipsErrorLog.call(exclusive: true, {
                bytes.data.withUnsafeBytes { buffer in
                    vips_foreign_is_a_buffer(loader.nickname, buffer.baseAddress, buffer.count) != 0
                }
            }, failed: { _ in false })
            if recognised { return "\(base) (it looks like a file for \(loader.nickname), \(advice))" }
        }
        return base
    }
}
