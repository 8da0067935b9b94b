import CWebPCodec
import Foundation

/// Lossy WebP for the direct path (libwebp), with libvips' webpsave defaults: the default
/// preset at a quality, method 4 (`effort`), no sharp YUV. A YCbCr image's planes go in as they
/// are, only moved to WebP's limited range; RGB or grey pixels are converted by libwebp as
/// libvips has them converted.
public enum WebPCodec {
    /// libvips' `effort` default: libwebp's `method`.
    public static let defaultMethod = 4

    /// `icc`, `exif`: a profile and an EXIF block (as `ExifBlock` makes it) for the file to carry.
    public static func encode(_ image: YCbCrImage, quality: Int, method: Int = defaultMethod, icc: [UInt8]? = nil,
                              exif: [UInt8]? = nil) throws(DirectError) -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = [CChar](repeating: 0, count: 200)
        let status = image.y.pixels.withUnsafeBufferPointer { y in
            image.cb.pixels.withUnsafeBufferPointer { cb in
                image.cr.pixels.withUnsafeBufferPointer { cr in
                    (icc ?? []).withUnsafeBufferPointer { icc in
                        (exif ?? []).withUnsafeBufferPointer { exif in
                            wb_webp_encode_planes(y.baseAddress, cb.baseAddress, cr.baseAddress, Int32(image.width), Int32(image.height),
                                                  Int32(quality), Int32(method), icc.baseAddress, icc.count, exif.baseAddress, exif.count,
                                                  &out, &size, &error, error.count)
                        }
                    }
                }
            }
        }
        return try taken(status, out, size, error)
    }

    public static func encode(_ image: PixelImage, quality: Int, method: Int = defaultMethod, icc: [UInt8]? = nil,
                              exif: [UInt8]? = nil) throws(DirectError) -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = [CChar](repeating: 0, count: 200)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            (icc ?? []).withUnsafeBufferPointer { icc in
                (exif ?? []).withUnsafeBufferPointer { exif in
                    wb_webp_encode_pixels(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.bands),
                                          Int32(quality), Int32(method), icc.baseAddress, icc.count, exif.baseAddress, exif.count,
                                          &out, &size, &error, error.count)
                }
            }
        }
        return try taken(status, out, size, error)
    }

    private static func taken(_ status: Int32, _ out: UnsafeMutablePointer<UInt8>?, _ size: Int, _ error: [CChar]) throws(DirectError) -> Data {
        guard status == 0, let out else {
            throw .webpFailed(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { wb_webp_free(out) }
        return Data(bytes: out, count: size)
    }
}
