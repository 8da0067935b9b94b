/// An image as a 4:2:0 JPEG stores it: luma at full size, the two chroma planes at half width
/// and height (rounded up), each plane a one-band `PixelImage`. What the direct path makes when
/// the file is YCbCr and the encode writes 4:2:0: the decode skips upsampling and conversion to
/// RGB, the resampler reduces half the samples, and the encode skips conversion and downsampling.
public struct YCbCrImage: Sendable {
    public var y: PixelImage
    public var cb: PixelImage
    public var cr: PixelImage

    public var width: Int { y.width }
    public var height: Int { y.height }

    public init(y: PixelImage, cb: PixelImage, cr: PixelImage) {
        self.y = y
        self.cb = cb
        self.cr = cr
    }

    /// The chroma planes' size for a `width` × `height` image.
    public static func chromaSize(width: Int, height: Int) -> (width: Int, height: Int) {
        ((width + 1) / 2, (height + 1) / 2)
    }

    /// Turned upright plane by plane (`PixelImage.upright`): a 4:2:0 image's chroma turned a
    /// quarter is the chroma of the turned image.
    public func upright(from orientation: Int) -> YCbCrImage {
        YCbCrImage(y: y.upright(from: orientation), cb: cb.upright(from: orientation), cr: cr.upright(from: orientation))
    }
}
