import CVips
import Foundation

extension VipsImage {
    /// An encoded file shrunk to fit `side` × `side` (shrunk on load where the format allows) as
    /// 8-bit sRGB with alpha, row by row: what a placeholder is computed from.
    static func placeholderPixels(_ data: Data, fitting side: Int, origin: String) throws(VipsError)
        -> (rgba: [UInt8], width: Int, height: Int) {
        var image = try VipsOperationCall.image("thumbnail_buffer", nil, [
            "buffer": .blob(data), "width": .int(side), "height": .int(side), "size": .string("down"),
        ])
        if !image.isSRGB || !image.isEightBit {
            image = try VipsOperationCall.image("colourspace", image, ["space": .string("srgb")])
            image = try VipsOperationCall.image("cast", image, ["format": .string("uchar")])
        }
        if image.bands == 3 {
            image = try VipsOperationCall.image("bandjoin_const", image, ["c": .doubles([255])])
        }
        guard image.bands == 4 else { throw .decodeFailed(origin: origin, message: "\(image.bands) bands after conversion to sRGB") }
        var size = 0
        let (memory, message) = VipsErrorLog.call(exclusive: false, { vips_image_write_to_memory(image.pointer, &size) }, failed: { $0 == nil })
        guard let memory else { throw .decodeFailed(origin: origin, message: message ?? "libvips could not read its pixels") }
        defer { g_free(memory) }
        return (Array(UnsafeRawBufferPointer(start: memory, count: size)), image.width, image.height)
    }
}
