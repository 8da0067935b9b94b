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
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = [CChar](repeating: 0, count: 300)
        let status = image.y.pixels.withUnsafeBufferPointer { y in
            image.cb.pixels.withUnsafeBufferPointer { cb in
                image.cr.pixels.withUnsafeBufferPointer { cr in
                    (icc ?? []).withUnsafeBufferPointer { icc in
                        (exif ?? []).withUnsafeBufferPointer { exif in
                            wb_avif_encode_planes(y.baseAddress, cb.baseAddress, cr.baseAddress, Int32(image.width), Int32(image.height),
                                                  settings.raw, icc.baseAddress, icc.count, exif.baseAddress, exif.count,
                                                  &out, &size, &error, error.count)
                        }
                    }
                }
            }
        }
        return try taken(status, out, size, error)
    }

    public static func encode(_ image: PixelImage, _ settings: Settings, icc: [UInt8]? = nil, exif: [UInt8]? = nil) throws(DirectError) -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = [CChar](repeating: 0, count: 300)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            (icc ?? []).withUnsafeBufferPointer { icc in
                (exif ?? []).withUnsafeBufferPointer { exif in
                    wb_avif_encode_pixels(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.bands),
                                          settings.raw, icc.baseAddress, icc.count, exif.baseAddress, exif.count,
                                          &out, &size, &error, error.count)
                }
            }
        }
        return try taken(status, out, size, error)
    }

    private static func taken(_ status: Int32, _ out: UnsafeMutablePointer<UInt8>?, _ size: Int, _ error: [CChar]) throws(DirectError) -> Data {
        guard status == 0, let out else {
            throw .avifFailed(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { wb_avif_free(out, size) }
        return Data(bytes: out, count: size)
    }
}
