import CJXLCodec
import Foundation

/// JPEG XL read back by libjxl, for a quality search to score its own candidates (libvips'
/// JPEG XL loader stays blocked as untrusted for files from outside).
public enum JXLCodec {
    /// A still JPEG XL's pixels in sRGB, 8 bits a sample: grey or RGB, with alpha when it has
    /// one (1 to 4 bands).
    public static func decodeSRGB(_ data: Data) throws(DirectError) -> PixelImage {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0, height: Int32 = 0, bands: Int32 = 0
        var error = [CChar](repeating: 0, count: 200)
        let status = data.withUnsafeBytes { raw in
            wb_jxl_decode_srgb(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &pixels, &width, &height, &bands,
                               &error, error.count)
        }
        defer { free(pixels) }
        guard status == 0, let pixels else {
            throw .jxlFailed(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let count = Int(width) * Int(height) * Int(bands)
        return PixelImage(width: Int(width), height: Int(height), bands: Int(bands), pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }
}
