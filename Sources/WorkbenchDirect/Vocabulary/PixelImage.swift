/// An 8-bit image in memory, bands interleaved row by row (RGB or grey): what the direct path
/// decodes into, resamples and encodes.
public struct PixelImage: Sendable {
    public let width: Int
    public let height: Int
    /// 3 (RGB) or 1 (grey); with alpha (2, 4) only as `WebPCodec.decode` and `JXLCodec` give it.
    public let bands: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, bands: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.bands = bands
        self.pixels = pixels
    }

    /// The top-left `width` × `height` of the image.
    public func cropped(width: Int, height: Int) -> PixelImage {
        guard width < self.width || height < self.height else { return self }
        var out = [UInt8]()
        out.reserveCapacity(width * height * bands)
        for y in 0..<height {
            let start = y * self.width * bands
            out.append(contentsOf: pixels[start..<(start + width * bands)])
        }
        return PixelImage(width: width, height: height, bands: bands, pixels: out)
    }

    /// The image turned upright from how an EXIF `orientation` (1–8) says it is stored: mirrored
    /// (2, 4), turned half round (3), transposed (5, 7) or turned a quarter (6 clockwise, 8 anticlockwise).
    public func upright(from orientation: Int) -> PixelImage {
        guard (2...8).contains(orientation) else { return self }
        let (w, h) = (width, height)
        let (outWidth, outHeight) = orientation >= 5 ? (h, w) : (w, h)
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case 2: (sx, sy) = (w - 1 - x, y)
                        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case 4: (sx, sy) = (x, h - 1 - y)
                        case 5: (sx, sy) = (y, x)
                        case 6: (sx, sy) = (y, h - 1 - x)
                        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                        default: (sx, sy) = (w - 1 - y, x)
                        }
                        let from = (sy * w + sx) * bands, to = (y * outWidth + x) * bands
                        for b in 0..<bands { target[to + b] = source[from + b] }
                    }
                }
            }
        }
        return PixelImage(width: outWidth, height: outHeight, bands: bands, pixels: out)
    }
}
