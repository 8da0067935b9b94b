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
        var call = EncoderCall()
        let status = EncoderCall.lending(image, icc: icc, exif: exif) { lent in
            wb_webp_encode_planes(lent.y.baseAddress, lent.cb.baseAddress, lent.cr.baseAddress, Int32(image.width), Int32(image.height),
                                  Int32(quality), Int32(method), lent.icc.baseAddress, lent.icc.count, lent.exif.baseAddress, lent.exif.count,
                                  &call.out, &call.size, &call.error, call.error.count)
        }
        return try call.taken(status, free: { data, _ in wb_webp_free(data) }, failure: DirectError.webpFailed)
    }

    public static func encode(_ image: PixelImage, quality: Int, method: Int = defaultMethod, icc: [UInt8]? = nil,
                              exif: [UInt8]? = nil) throws(DirectError) -> Data {
        var call = EncoderCall()
        let status = EncoderCall.lending(image, icc: icc, exif: exif) { lent in
            wb_webp_encode_pixels(lent.y.baseAddress, Int32(image.width), Int32(image.height), Int32(image.bands),
                                  Int32(quality), Int32(method), lent.icc.baseAddress, lent.icc.count, lent.exif.baseAddress, lent.exif.count,
                                  &call.out, &call.size, &call.error, call.error.count)
        }
        return try call.taken(status, free: { data, _ in wb_webp_free(data) }, failure: DirectError.webpFailed)
    }

    /// A still WebP's pixels as libvips decodes them: RGB, or RGBA when the file has alpha (the
    /// one place `PixelImage` holds four bands). Nil for what libwebp cannot decode here (an
    /// animation, damage): decode that with libvips.
    public static func decode(_ data: Data) -> PixelImage? {
        data.withUnsafeBytes { raw -> PixelImage? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var width: Int32 = 0, height: Int32 = 0, alpha: Int32 = 0
            guard wb_webp_features(base, raw.count, &width, &height, &alpha) == 0, width > 0, height > 0 else { return nil }
            let bands = alpha != 0 ? 4 : 3
            var status: Int32 = -1
            let pixels = [UInt8](unsafeUninitializedCapacity: Int(width) * Int(height) * bands) { buffer, initialized in
                status = wb_webp_decode(base, raw.count, alpha, buffer.baseAddress, buffer.count, width)
                initialized = status == 0 ? buffer.count : 0
            }
            return status == 0 ? PixelImage(width: Int(width), height: Int(height), bands: bands, pixels: pixels) : nil
        }
    }
}
