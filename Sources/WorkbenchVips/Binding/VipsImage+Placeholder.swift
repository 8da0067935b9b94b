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
        return (try image.memoryBytes(origin: origin), image.width, image.height)
    }
}
