import CJPEGCodec
import Foundation
import WorkbenchCore

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

    /// The file's ICC profile (its APP2 segments joined), or nil when it has none libjpeg can
    /// put together.
    public static func iccProfile(_ data: Data) -> [UInt8]? {
        var icc: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = [CChar](repeating: 0, count: 200)
        let status = data.withUnsafeBytes { bytes in
            wb_jpeg_read_icc(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &icc, &size, &error, error.count)
        }
        guard status == 0, let icc else { return nil }
        defer { free(icc) }
        return Array(UnsafeBufferPointer(start: icc, count: size))
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
        try checkDecode(status, error)
        return PixelImage(width: width, height: height, bands: bands, pixels: pixels)
    }

    /// A YCbCr file's planes at 1/`shrink` as stored, with how many samples of each plane go
    /// with one luma sample across and down (1 or ½ for 4:2:0 at full scale; libjpeg may decode
    /// chroma at a larger DCT size when it shrinks). Throws as `decode`.
    public static func decodePlanes(_ data: Data, shrink: Int) throws(DirectError) -> (planes: [PixelImage], ratios: [(x: Double, y: Double)]) {
        var raw = wb_jpeg_planes()
        var error = [CChar](repeating: 0, count: 200)
        let status = data.withUnsafeBytes { bytes in
            wb_jpeg_decode_planes(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(shrink), &raw, &error, error.count)
        }
        defer { wb_jpeg_free_planes(&raw) }
        try checkDecode(status, error)
        let data = [raw.data.0, raw.data.1, raw.data.2], widths = [raw.width.0, raw.width.1, raw.width.2]
        let heights = [raw.height.0, raw.height.1, raw.height.2]
        let h = [raw.h_factor.0, raw.h_factor.1, raw.h_factor.2], v = [raw.v_factor.0, raw.v_factor.1, raw.v_factor.2]
        var planes: [PixelImage] = []
        for c in 0..<3 {
            guard let base = data[c] else { throw .jpegFailed("libjpeg gave no plane \(c)") }
            let (width, height) = (Int(widths[c]), Int(heights[c]))
            planes.append(PixelImage(width: width, height: height, bands: 1,
                                     pixels: Array(UnsafeBufferPointer(start: base, count: width * height))))
        }
        let ratios = (0..<3).map { c in (x: Double(h[c]) / Double(h[0]), y: Double(v[c]) / Double(v[0])) }
        return (planes, ratios)
    }

    /// The image as a 4:2:0 JPEG at `quality` (below 90) from its planes, as `encode` writes it.
    public static func encode(_ image: YCbCrImage, quality: Int, exif: [UInt8]?, icc: [UInt8]? = nil) throws(DirectError) -> Data {
        // The only sampling these planes are made for.
        guard DirectForm.jpegSubsamples(quality: quality) else {
            throw .jpegFailed("planes are 4:2:0; quality \(quality) is written 4:4:4")
        }
        var call = EncoderCall()
        let widths = [image.y.width, image.cb.width, image.cr.width].map(Int32.init)
        let heights = [image.y.height, image.cb.height, image.cr.height].map(Int32.init)
        let status = EncoderCall.lending(image, icc: icc, exif: exif) { lent in
            let planes: [UnsafePointer<UInt8>?] = [lent.y.baseAddress, lent.cb.baseAddress, lent.cr.baseAddress]
            return wb_jpeg_encode_planes(planes, widths, heights, Int32(image.width), Int32(image.height), Int32(quality),
                                         lent.exif.baseAddress, lent.exif.count, lent.icc.baseAddress, lent.icc.count,
                                         &call.out, &call.size, &call.error, call.error.count)
        }
        return try call.taken(status, free: { data, _ in free(data) }, failure: DirectError.jpegFailed)
    }

    /// The image as a JPEG at `quality`, with `exif` (an APP1 body) if given, as libvips'
    /// jpegsave writes it: no JFIF segment, 4:2:0 below quality 90, baseline Huffman tables.
    public static func encode(_ image: PixelImage, quality: Int, exif: [UInt8]?, icc: [UInt8]? = nil) throws(DirectError) -> Data {
        var call = EncoderCall()
        let status = EncoderCall.lending(image, icc: icc, exif: exif) { lent in
            wb_jpeg_encode(lent.y.baseAddress, Int32(image.width), Int32(image.height), Int32(image.bands), Int32(quality),
                           DirectForm.jpegSubsamples(quality: quality) ? 1 : 0,
                           lent.exif.baseAddress, lent.exif.count, lent.icc.baseAddress, lent.icc.count,
                           &call.out, &call.size, &call.error, call.error.count)
        }
        return try call.taken(status, free: { data, _ in free(data) }, failure: DirectError.jpegFailed)
    }

    /// What libjpeg's C side said: the message it wrote into `error`.
    private static func message(_ error: [CChar]) -> String {
        String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A decode's status: 0 fine, 1 libjpeg warned (damaged data), -1 failed.
    private static func checkDecode(_ status: Int32, _ error: [CChar]) throws(DirectError) {
        guard status >= 0 else { throw .jpegFailed(message(error)) }
        guard status == 0 else { throw .damaged(message(error)) }
    }
}
