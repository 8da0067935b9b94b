import Foundation

/// A thumbnail made on the direct path: a JPEG decoded at a DCT scale (libjpeg's 1/2, 1/4,
/// 1/8), then reduced with Lanczos-3 to fit inside the box, never enlarging — the geometry of
/// libvips' `thumbnail`. Fast: the smallest scale that still covers the box; otherwise libvips'
/// own rule, which leaves at least twice the target for the reduce (sharper, a little slower).
public struct Thumbnail: Sendable {
    /// The box; nil on an axis means unbounded.
    public let width: Int?
    public let height: Int?
    public let fast: Bool

    public init(width: Int?, height: Int?, fast: Bool = true) {
        self.width = width
        self.height = height
        self.fast = fast
    }

    /// The DCT scale to decode a `storedWidth` × `storedHeight` JPEG at.
    public func shrink(storedWidth: Int, storedHeight: Int) -> Int {
        let factor = max(Double(storedWidth) / Double(width ?? Int.max), Double(storedHeight) / Double(height ?? Int.max))
        return Self.jpegShrink(factor: factor, smallerSide: min(storedWidth, storedHeight), headroom: fast ? 1 : 2)
    }

    /// The largest JPEG DCT scale (8, 4, 2; else 1) that leaves `headroom` times the target for a
    /// reduction by `factor` — libvips' rule at 2 (8 from a factor of 16, 4 from 8, 2 from 4) —
    /// leaving at least two pixels on the shorter axis, as libvips 8.14's thumbnail does (a
    /// strip 9 pixels tall loads at 1/4, not at 1/8, where libvips keeps floor(9 / 8) = 1 of its
    /// rows and the thumbnail is that row's colour). Both paths choose their scale here.
    public static func jpegShrink(factor: Double, smallerSide: Int, headroom: Double) -> Int {
        [8, 4, 2].first { Double($0) * headroom <= factor && 2 * $0 <= smallerSide } ?? 1
    }

    /// The size a decoded `loadedWidth` × `loadedHeight` image is reduced to.
    public func size(loadedWidth: Int, loadedHeight: Int) -> (width: Int, height: Int) {
        let scale = min(Double(width ?? Int.max) / Double(loadedWidth), Double(height ?? Int.max) / Double(loadedHeight))
        guard scale < 1 else { return (loadedWidth, loadedHeight) }
        return (max(1, Int((Double(loadedWidth) * scale).rounded())), max(1, Int((Double(loadedHeight) * scale).rounded())))
    }

    /// The DCT scale a file with this header is decoded at, the pixels kept of the decode
    /// (libjpeg rounds a scaled size up; libvips keeps floor(size / shrink) of it), and the size
    /// they are reduced to.
    private func geometry(_ header: JPEGHeader) -> (shrink: Int, loaded: (Int, Int), target: (width: Int, height: Int)) {
        let shrink = shrink(storedWidth: header.width, storedHeight: header.height)
        let loaded = (max(1, header.width / shrink), max(1, header.height / shrink))
        return (shrink, loaded, size(loadedWidth: loaded.0, loadedHeight: loaded.1))
    }

    /// Whether a JPEG with this header is reduced after its decode (or only decoded at a scale).
    public func reduces(_ header: JPEGHeader) -> Bool {
        let (_, loaded, target) = geometry(header)
        return target.width != loaded.0 || target.height != loaded.1
    }

    /// The thumbnail of a JPEG: decode at the DCT scale, then reduce. Throws when libjpeg fails or
    /// warns (the caller leaves the file to libvips).
    public func make(from data: Data, header: JPEGHeader) throws(DirectError) -> (image: PixelImage, shrink: Int, loaded: (Int, Int)) {
        let (shrink, loaded, target) = geometry(header)
        let decoded = try JPEGCodec.decode(data, header: header, shrink: shrink).cropped(width: loaded.0, height: loaded.1)
        return (Resampler.reduce(decoded, width: target.width, height: target.height), shrink, loaded)
    }

    /// The same thumbnail of a YCbCr JPEG as 4:2:0 planes: each plane decoded as stored and
    /// reduced on its own, the chroma to half the thumbnail's size.
    public func makePlanes(from data: Data, header: JPEGHeader) throws(DirectError) -> (image: YCbCrImage, shrink: Int, loaded: (Int, Int)) {
        let (shrink, loaded, target) = geometry(header)
        let (planes, ratios) = try JPEGCodec.decodePlanes(data, shrink: shrink)
        let chroma = YCbCrImage.chromaSize(width: target.width, height: target.height)
        let shrinkX = Double(loaded.0) / Double(target.width), shrinkY = Double(loaded.1) / Double(target.height)
        var reduced: [PixelImage] = []
        for (c, plane) in planes.enumerated() {
            let (width, height) = c == 0 ? (target.width, target.height) : chroma
            // An output chroma sample spans two output luma samples, each `shrink` input luma
            // samples, each `ratio` samples of this plane.
            let (scaleX, scaleY) = c == 0 ? (1.0, 1.0) : (2 * ratios[c].x, 2 * ratios[c].y)
            let kept = plane.cropped(width: min(plane.width, Int((Double(loaded.0) * ratios[c].x).rounded(.up))),
                                     height: min(plane.height, Int((Double(loaded.1) * ratios[c].y).rounded(.up))))
            reduced.append(Resampler.reduce(kept, width: width, height: height, shrinkX: shrinkX * scaleX, shrinkY: shrinkY * scaleY))
        }
        return (YCbCrImage(y: reduced[0], cb: reduced[1], cr: reduced[2]), shrink, loaded)
    }
}
