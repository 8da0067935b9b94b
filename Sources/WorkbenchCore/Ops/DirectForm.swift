/// What a node's parameters make of it on the direct path (libjpeg, libwebp, libavif and our own
/// resampler, no libvips image but the one a JPEG XL is saved from), for the planner: a decode read by one `.fit`, whose result
/// only further `.fit`s (cascaded from it) and encodes with a direct form read, runs there as
/// one tree. Ops give one through `OpSpec.directForm`; nil when the parameters ask for
/// something the direct path does not do.
public enum DirectForm: Sendable, Equatable {
    /// Fits the image inside a box, never enlarging.
    case fit(FitBox)
    /// Encodes to JPEG at a quality, with libvips' other settings and default metadata.
    case jpegEncode(quality: Int)
    /// Encodes to lossy WebP at a quality, with libvips' other settings and default metadata.
    case webpEncode(quality: Int)
    /// Encodes to AVIF (4:2:0) at a quality (libvips' Q scale) and libavif's speed, with default metadata.
    case avifEncode(quality: Int, speed: Int)
    /// Encodes to JPEG XL at a quality and effort (libvips' scales) by libvips' saver, from the
    /// direct path's RGB pixels.
    case jxlEncode(quality: Int, effort: Int)
    /// Encodes to a quality target (`"target"`) by libvips' saver for `format`, searching the
    /// quality from the direct path's RGB pixels as they would from libvips' image (the direct
    /// path's thumbnail reduces with libvips' windows).
    case searchedEncode(format: String)

    /// libvips' jpegsave rule, the one place it is written: 4:2:0 chroma below quality 90,
    /// 4:4:4 from 90. The planner reads it here, and the direct path's encoder tells libjpeg.
    public static func jpegSubsamples(quality: Int) -> Bool { quality < 90 }

    /// An encode whose chroma is 4:2:0 (JPEG below quality 90, as libvips writes it; lossy
    /// WebP and our AVIF always): a YCbCr file's planes can go straight through to it.
    var encodesSubsampled: Bool? {
        switch self {
        case .fit: return nil
        case .jpegEncode(let quality): return Self.jpegSubsamples(quality: quality)
        case .webpEncode, .avifEncode: return true
        case .jxlEncode: return false
        // Scored against full-colour pixels, as against libvips' thumbnail: 4:2:0 planes would
        // hide the subsampling's loss from the score.
        case .searchedEncode: return false
        }
    }
}

/// The nodes after a decode that the direct path can run, as the planner found them: whether
/// every encode in the tree writes 4:2:0. (The box each fit makes is its own node's.)
public struct DirectChain: Sendable, Equatable {
    /// Every encode writes 4:2:0 chroma, so a YCbCr file's planes can go straight through.
    public let encodesSubsampled: Bool

    public init(encodesSubsampled: Bool) {
        self.encodesSubsampled = encodesSubsampled
    }
}
