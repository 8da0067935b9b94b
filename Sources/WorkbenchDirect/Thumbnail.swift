import Foundation
import WorkbenchCore

/// A thumbnail made on the direct path: a JPEG decoded at a DCT scale (libjpeg's 1/2, 1/4,
/// 1/8), then reduced with Lanczos-3 to fit inside the box, never enlarging — the geometry of
/// libvips' `thumbnail`, decided once from the header (`FitGeometry`) and only read here.
public struct Thumbnail: Sendable {
    /// The scale, the pixels it keeps and the size they are reduced to.
    public let geometry: FitGeometry

    public init(_ geometry: FitGeometry) {
        self.geometry = geometry
    }

    /// The thumbnail of a JPEG with this header inside an upright box (nil on an axis: free).
    /// `fast` takes the smallest scale that still covers the box (`fastShrink`); otherwise
    /// libvips' own rule, which leaves at least twice the target for the reduce (sharper, a
    /// little slower).
    public init(_ header: JPEGHeader, width: Int?, height: Int?, fast: Bool = false) {
        geometry = FitGeometry(image: .init(header.width, header.height), orientation: header.orientation, width: width, height: height,
                               headroom: fast ? 1 : 2)
    }

    /// The thumbnail of a JPEG: decode at the DCT scale, then reduce. Throws when libjpeg fails or
    /// warns (the caller leaves the file to libvips).
    public func make(from data: Data, header: JPEGHeader) throws(DirectError) -> PixelImage {
        let (loaded, target) = (geometry.loaded, geometry.reduced)
        let decoded = try JPEGCodec.decode(data, header: header, shrink: geometry.jpegShrink).cropped(width: loaded.width, height: loaded.height)
        // libvips' own windows where its reduce would take them alone (no box shrink first).
        if let reduction = geometry.reduction, let reduced = Resampler.reducedAsLibvips(decoded, shrink: reduction),
           (reduced.width, reduced.height) == (target.width, target.height) {
            return reduced
        }
        return Resampler.reduce(decoded, width: target.width, height: target.height)
    }

    /// The same thumbnail of a YCbCr JPEG as 4:2:0 planes: each plane decoded as stored and
    /// reduced on its own, the luma with libvips' windows (as `make`), the chroma to half the
    /// thumbnail's size, each sample centred between the two luma samples it spans.
    public func makePlanes(from data: Data) throws(DirectError) -> YCbCrImage {
        let (loaded, target) = (geometry.loaded, geometry.reduced)
        let (planes, ratios) = try JPEGCodec.decodePlanes(data, shrink: geometry.jpegShrink)
        let chroma = YCbCrImage.chromaSize(width: target.width, height: target.height)
        let (shrinkX, shrinkY) = geometry.reduction ?? geometry.reducedBy
        // libvips shares the rounding of the output size out at both ends: its centres sit back
        // by half of what the output overshoots the input (`ReduceAxis`); the chroma follows.
        let (extraX, extraY) = geometry.reduction == nil ? (0, 0)
            : (Double(target.width) * shrinkX - Double(loaded.width), Double(target.height) * shrinkY - Double(loaded.height))
        var reduced: [PixelImage] = []
        for (c, plane) in planes.enumerated() {
            let kept = plane.cropped(width: min(plane.width, Int((Double(loaded.width) * ratios[c].x).rounded(.up))),
                                     height: min(plane.height, Int((Double(loaded.height) * ratios[c].y).rounded(.up))))
            if c == 0, let reduction = geometry.reduction, let luma = Resampler.reducedAsLibvips(kept, shrink: reduction),
               (luma.width, luma.height) == (target.width, target.height) {
                reduced.append(luma)
                continue
            }
            let (width, height) = c == 0 ? (target.width, target.height) : chroma
            // An output chroma sample spans two output luma samples, each `shrink` input luma
            // samples, each `ratio` samples of this plane.
            let (scaleX, scaleY) = c == 0 ? (1.0, 1.0) : (2 * ratios[c].x, 2 * ratios[c].y)
            let (ratioX, ratioY) = c == 0 ? (1.0, 1.0) : (ratios[c].x, ratios[c].y)
            reduced.append(Resampler.reduce(kept, width: width, height: height, shrinkX: shrinkX * scaleX, shrinkY: shrinkY * scaleY,
                                            shiftX: ratioX * extraX / 2, shiftY: ratioY * extraY / 2))
        }
        return YCbCrImage(y: reduced[0], cb: reduced[1], cr: reduced[2])
    }
}
