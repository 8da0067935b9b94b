/// An 8-bit image in memory, bands interleaved row by row (RGB or grey): what the direct path
/// decodes into, resamples and encodes.
public struct PixelImage: Sendable {
    public let width: Int
    public let height: Int
    /// 3 (RGB) or 1 (grey).
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
}
