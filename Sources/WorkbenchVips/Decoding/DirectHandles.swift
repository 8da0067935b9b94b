import Foundation
import Synchronization
import WorkbenchCore
import WorkbenchDirect
import WorkbenchJPEG

/// A JPEG the decode handed to the direct path (the plan's `DirectChain`): its bytes, the decode's settings
/// and what libjpeg read of its header. No libvips object is made for it unless a reader needs
/// one after all (`decodedByLibvips`).
final class DirectSource: ImageHandle {
    let bytes: Bytes
    let options: DecodeOptions
    let header: JPEGHeader
    /// The `decode` node, which damage is blamed on.
    let node: String
    /// A YCbCr file whose encode writes 4:2:0: its planes go through as stored (`YCbCrImage`).
    let keepsPlanes: Bool
    /// The profile its JPEGs carry, as libvips' would: the file's own sRGB profile, or
    /// libvips' sRGB after a conversion (nil: none).
    let profile: [UInt8]?
    /// The conversion from the file's profile to sRGB, made after the resize (nil: none needed).
    let transform: ColourTransform?

    init(bytes: Bytes, options: DecodeOptions, header: JPEGHeader, node: String, keepsPlanes: Bool = false,
         colour: Colour = Colour(profile: nil, transform: nil)) {
        self.bytes = bytes
        self.options = options
        self.header = header
        self.node = node
        self.keepsPlanes = keepsPlanes && colour.transform == nil
        self.profile = colour.profile
        self.transform = colour.transform
    }

    /// What the direct path does with a file's colours: nothing (no profile, or sRGB's), or a
    /// conversion to sRGB; and the profile its files carry.
    struct Colour {
        let profile: [UInt8]?
        let transform: ColourTransform?
    }

    /// Upright, as the libvips path's decode would be.
    var width: Int { header.orientation >= 5 ? header.height : header.width }
    var height: Int { header.orientation >= 5 ? header.width : header.height }
    var bands: Int { header.components == 1 ? 1 : 3 }

    /// The decode as the libvips path makes it, for a reader the direct path cannot serve: the
    /// same image, errors and warnings as if the decode had never chosen the direct path.
    func decodedByLibvips() throws(VipsError) -> ShrinkableImage {
        let image = try VipsDecoding.decode(bytes, options, node: node, deferMemoryCheck: true)
        return ShrinkableImage(image, source: image.origin ?? DecodedSource(
            bytes: bytes, options: options, colourManaged: false, orientation: 1,
            storedWidth: image.width, storedHeight: image.height, node: node))
    }

    /// What the direct path makes of a file: it takes it, with what it does to its colours, or
    /// declines it, saying why.
    enum Admission {
        case taken(Colour)
        case declined(String)
    }

    /// Why the direct path leaves this file to libvips, or nil when it decodes it as libvips
    /// would (`admission`).
    static func refusal(_ header: JPEGHeader, _ bytes: Bytes, _ options: DecodeOptions) -> String? {
        if case .declined(let reason) = admission(header, bytes, options) { return reason }
        return nil
    }

    /// The direct path takes an 8-bit JPEG in YCbCr or grey, upright or turned by its EXIF
    /// orientation, without an ICC profile, with an sRGB one (converting through it to sRGB, as
    /// libvips does, changes nothing), with another RGB profile lcms2 converts from, or grey
    /// with any profile (kept, as libvips keeps it), within the decode's limits. Every failure or warning later goes to libvips too.
    static func admission(_ header: JPEGHeader, _ bytes: Bytes, _ options: DecodeOptions) -> Admission {
        if !options.toSRGB { return .declined("colours kept as stored") }
        if options.pages != 1 { return .declined("all pages") }
        var colour = Colour(profile: nil, transform: nil)
        if header.hasICCProfile {
            let embedded = JPEGCodec.iccProfile(bytes.data)
            let profile = embedded.map(ICCProfile.init)
            if let embedded, profile?.isSRGB == true || header.components == 1 {
                // sRGB needs no conversion; grey is kept as stored, its profile with it, as the
                // libvips path keeps it (only colour images go through their profile to sRGB).
                colour = Colour(profile: embedded, transform: nil)
            } else {
                // Another RGB profile is converted to sRGB by lcms2, as libvips converts it.
                let name = profile?.description.map { " (\($0))" } ?? ""
                guard header.components == 3, let embedded, let srgb = ColourProfile.libvipsSRGB,
                      let transform = ColourTransform.from(embedded, to: srgb) else {
                    return .declined("an ICC profile\(name) lcms2 cannot convert from here, which libvips converts through to sRGB")
                }
                colour = Colour(profile: srgb, transform: transform)
            }
        }
        // Turned upright by the direct path as libvips turns it; kept as stored, the file would
        // carry the orientation, which the direct path's EXIF does not say.
        if header.orientation != 1 && (!options.autorotate || !(2...8).contains(header.orientation)) {
            return .declined("EXIF orientation \(header.orientation) kept")
        }
        guard (header.components == 3 && header.colourSpace == 3) || (header.components == 1 && header.colourSpace == 1) else {
            return .declined("\(header.components) components in colour space \(header.colourSpace) (CMYK, YCCK or RGB)")
        }
        if header.width * header.height > options.maxPixels { return .declined("more pixels than maxPixels") }
        // libjpeg holds every coefficient of a progressive file; the libvips path refuses one over
        // the decode's memory limit, so such a file is left to say so.
        if header.isProgressive {
            let needed = bytes.data.withUnsafeBytes { JPEGFrameHeader($0)?.libjpegCoefficientBytes } ?? Int.max
            if needed > options.maxMemory { return .declined("a progressive JPEG over maxMemory") }
        }
        return .taken(colour)
    }
}

/// Pixels the direct path made (a thumbnail), ready for the direct encodes or a smaller fit:
/// interleaved RGB or grey, or a YCbCr file's planes. Immutable, so several readers share it.
final class DirectImage: ImageHandle {
    enum Pixels {
        case interleaved(PixelImage)
        case planes(YCbCrImage)
    }

    let pixels: Pixels
    /// The `decode` node the pixels came from.
    let node: String
    /// The decoded file's size, upright: a fit made from these pixels is sized from it, as a
    /// thumbnail of the whole file would be (the planner's cascade).
    let fullWidth: Int, fullHeight: Int
    /// The file's sRGB profile, for the encodes to carry (`DirectSource.profile`).
    let profile: [UInt8]?

    /// The RGB pixels as a libvips image in memory, for the encodes only libvips' savers make
    /// (JPEG XL, quality targets): made by the first to ask and shared, so the searches of one
    /// photo's formats share one prepared original (`PreparedOriginals` knows it by identity).
    private let copied = Mutex<VipsImage?>(nil)

    init(_ pixels: Pixels, node: String, fullWidth: Int, fullHeight: Int, profile: [UInt8]? = nil) {
        self.pixels = pixels
        self.node = node
        self.fullWidth = fullWidth
        self.fullHeight = fullHeight
        self.profile = profile
    }

    /// `copied`, made now if it is not yet; nil for planes (the plan decodes RGB for a tree
    /// with such an encode) or when libvips cannot make the image.
    func vipsImage() -> VipsImage? {
        guard case .interleaved(let image) = pixels else { return nil }
        return copied.withLock { held in
            if let held { return held }
            held = VipsImage.copying(image.pixels, width: image.width, height: image.height, bands: image.bands, icc: profile)
            return held
        }
    }

    /// The same image, reduced to `width` × `height` (Lanczos-3, plane by plane for planes).
    func reduced(width: Int, height: Int) -> DirectImage {
        let smaller: Pixels = switch pixels {
        case .interleaved(let image): .interleaved(Resampler.reduce(image, width: width, height: height))
        case .planes(let image): .planes(image.reduced(width: width, height: height))
        }
        return DirectImage(smaller, node: node, fullWidth: fullWidth, fullHeight: fullHeight, profile: profile)
    }

    var width: Int {
        switch pixels {
        case .interleaved(let image): image.width
        case .planes(let image): image.width
        }
    }

    var height: Int {
        switch pixels {
        case .interleaved(let image): image.height
        case .planes(let image): image.height
        }
    }

    var bands: Int {
        switch pixels {
        case .interleaved(let image): image.bands
        case .planes: 3
        }
    }
}
