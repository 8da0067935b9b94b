import Foundation

/// A thumbnail made on the direct path: a JPEG decoded at the smallest DCT scale that still
/// covers the box (libjpeg's 1/2, 1/4, 1/8), then reduced with Lanczos-3 to fit inside it —
/// the geometry of libvips' `thumbnail` with fast shrink-on-load, never enlarging.
public struct Thumbnail: Sendable {
    /// The box; nil on an axis means unbounded.
    public let width: Int?
    public let height: Int?

    public init(width: Int?, height: Int?) {
        self.width = width
        self.height = height
    }

    /// The DCT scale to decode a `storedWidth` × `storedHeight` JPEG at.
    public func shrink(storedWidth: Int, storedHeight: Int) -> Int {
        let factor = max(Double(storedWidth) / Double(width ?? Int.max), Double(storedHeight) / Double(height ?? Int.max))
        // An axis is never shrunk below one pixel (a 3-pixel strip at 1/8 would have none).
        let smaller = min(storedWidth, storedHeight)
        return [8, 4, 2].first { Double($0) <= factor && $0 <= smaller } ?? 1
    }

    /// The size a decoded `loadedWidth` × `loadedHeight` image is reduced to.
    public func size(loadedWidth: Int, loadedHeight: Int) -> (width: Int, height: Int) {
        let scale = min(Double(width ?? Int.max) / Double(loadedWidth), Double(height ?? Int.max) / Double(loadedHeight))
        guard scale < 1 else { return (loadedWidth, loadedHeight) }
        return (max(1, Int((Double(loadedWidth) * scale).rounded())), max(1, Int((Double(loadedHeight) * scale).rounded())))
    }

    /// The thumbnail of a JPEG: decode at the DCT scale, then reduce. Throws when libjpeg fails or
    /// warns (the caller leaves the file to libvips).
    public func make(from data: Data, storedWidth: Int, storedHeight: Int) throws(DirectError) -> (image: PixelImage, shrink: Int, loaded: (Int, Int)) {
        let shrink = shrink(storedWidth: storedWidth, storedHeight: storedHeight)
        // libjpeg rounds a scaled size up; libvips keeps floor(size / shrink) pixels of it.
        let decoded = try JPEGCodec.decode(data, shrink: shrink)
            .cropped(width: max(1, storedWidth / shrink), height: max(1, storedHeight / shrink))
        let target = size(loadedWidth: decoded.width, loadedHeight: decoded.height)
        return (Resampler.reduce(decoded, width: target.width, height: target.height), shrink, (decoded.width, decoded.height))
    }
}
