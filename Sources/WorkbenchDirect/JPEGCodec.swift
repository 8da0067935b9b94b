import CJPEGCodec
import Foundation

/// What a JPEG's header says (`wb_jpeg_header`, read by libjpeg without decoding).
public struct JPEGHeader: Sendable {
    public let width: Int
    public let height: Int
    public let components: Int
    /// 1 grey, 3 YCbCr; others (RGB, CMYK, YCCK) are left to libvips.
    public let colourSpace: Int
    public let isProgressive: Bool
    public let hasICCProfile: Bool
    public let hasEXIF: Bool
    /// The EXIF orientation, 1 when none is given.
    public let orientation: Int
}

/// libjpeg for the direct path: the header, a decode at a DCT scale, an encode — the same library
/// and settings libvips uses for JPEG, so decoded pixels and encoded bytes match its own.
public enum JPEGCodec {
    /// The header, or nil when libjpeg cannot read it.
    public static func header(_ data: Data) -> JPEGHeader? {
        var raw = wb_jpeg_header()
        var error = [CChar](repeating: 0, count: 200)
        let status = data.withUnsafeBytes { bytes in
            wb_jpeg_read_header(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &raw, &error, error.count)
        }
        guard status == 0 else { return nil }
        return JPEGHeader(width: Int(raw.width), height: Int(raw.height), components: Int(raw.components),
                          colourSpace: Int(raw.colour_space), isProgressive: raw.progressive != 0, hasICCProfile: raw.has_icc != 0,
                          hasEXIF: raw.has_exif != 0, orientation: Int(raw.orientation))
    }

    /// The pixels at 1/`shrink` (1, 2, 4 or 8) of a file with this header, RGB for colour files
    /// and grey for grey ones, decoded straight into the image's storage. Throws `.damaged` when
    /// libjpeg warned (its guess at the pixels is not used).
    public static func decode(_ data: Data, header: JPEGHeader, shrink: Int) throws(DirectError) -> PixelImage {
        // libjpeg's scaled size: ceil(size / shrink).
        let width = (header.width + shrink - 1) / shrink, height = (header.height + shrink - 1) / shrink
        let bands = header.components == 1 ? 1 : 3
        var error = [CChar](repeating: 0, count: 200)
        var status: Int32 = -1
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * bands) { buffer, initialized in
            status = data.withUnsafeBytes { bytes in
                wb_jpeg_decode(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(shrink),
                               buffer.baseAddress, buffer.count, Int32(width), Int32(height), Int32(bands), &error, error.count)
            }
            // A failed decode keeps nothing (it is thrown away below).
            initialized = status < 0 ? 0 : buffer.count
        }
        let message = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard status >= 0 else { throw .jpegFailed(message) }
        guard status == 0 else { throw .damaged(message) }
        return PixelImage(width: width, height: height, bands: bands, pixels: pixels)
    }

    /// The image as a JPEG at `quality`, with `exif` (an APP1 body) if given, as libvips'
    /// jpegsave writes it: no JFIF segment, 4:2:0 below quality 90, baseline Huffman tables.
    public static func encode(_ image: PixelImage, quality: Int, exif: [UInt8]?) throws(DirectError) -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = [CChar](repeating: 0, count: 200)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            (exif ?? []).withUnsafeBufferPointer { exif in
                wb_jpeg_encode(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.bands), Int32(quality),
                               exif.baseAddress, exif.count, &out, &size, &error, error.count)
            }
        }
        defer { free(out) }
        guard status == 0, let out else {
            throw .jpegFailed(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return Data(bytes: out, count: size)
    }
}
