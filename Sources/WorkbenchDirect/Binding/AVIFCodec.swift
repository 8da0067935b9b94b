import CAVIFCodec
import Foundation

/// AVIF for the direct path (libavif with libaom): a YCbCr image's planes go to the AV1 encoder
/// as they are, signalled as what they are (full-range BT.601, sRGB primaries), so nothing is
/// converted; RGB pixels are converted by libavif, grey ones written as luma over neutral chroma
/// (read back as RGB with three equal bands, as libvips reads any AVIF). libavif is opened on the
/// first encode, so a run that writes no AVIF never maps libaom and the other AV1 libraries.
public enum AVIFCodec {
    /// Which AV1 encoder libavif runs.
    public enum Encoder: Int32, CaseIterable, Sendable {
        case auto = 0, aom = 1, rav1e = 2, svt = 3

        /// The encoder's name as libavif reports it, or nil when this libavif lacks it.
        public var availableName: String? {
            wb_avif_codec_name(rawValue).map { String(cString: $0) }
        }
    }

    /// What an encode is asked for. `quality` is libvips' Q (1–100), mapped onto AV1's
    /// quantizer as libheif maps it, so a Q means what it means to libvips' `heifsave`;
    /// `speed` is libavif's (0 slowest, 10 fastest); `threads` the encoder may use.
    public struct Settings: Sendable, Equatable {
        public var quality: Int
        public var speed: Int
        public var threads: Int
        public var encoder: Encoder

        public init(quality: Int, speed: Int, threads: Int = 1, encoder: Encoder = .aom) {
            (self.quality, self.speed, self.threads, self.encoder) = (quality, speed, threads, encoder)
        }

        fileprivate var raw: wb_avif_settings {
            wb_avif_settings(quality: Int32(quality), speed: Int32(speed), threads: Int32(threads), codec: encoder.rawValue)
        }
    }

    /// `icc`, `exif`: a profile and an EXIF block for the file to carry.
    public static func encode(_ image: YCbCrImage, _ settings: Settings, icc: [UInt8]? = nil, exif: [UInt8]? = nil) throws(DirectError) -> Data {
        var call = EncoderCall()
        let status = EncoderCall.lending(image, icc: icc, exif: exif) { lent in
            wb_avif_encode_planes(lent.y.baseAddress, lent.cb.baseAddress, lent.cr.baseAddress, Int32(image.width), Int32(image.height),
                                  settings.raw, lent.icc.baseAddress, lent.icc.count, lent.exif.baseAddress, lent.exif.count,
                                  &call.out, &call.size, &call.error, call.error.count)
        }
        return try call.taken(status, free: wb_avif_free, failure: DirectError.avifFailed)
    }

    public static func encode(_ image: PixelImage, _ settings: Settings, icc: [UInt8]? = nil, exif: [UInt8]? = nil) throws(DirectError) -> Data {
        var call = EncoderCall()
        let status = EncoderCall.lending(image, icc: icc, exif: exif) { lent in
            wb_avif_encode_pixels(lent.y.baseAddress, Int32(image.width), Int32(image.height), Int32(image.bands),
                                  settings.raw, lent.icc.baseAddress, lent.icc.count, lent.exif.baseAddress, lent.exif.count,
                                  &call.out, &call.size, &call.error, call.error.count)
        }
        return try call.taken(status, free: wb_avif_free, failure: DirectError.avifFailed)
    }
}
