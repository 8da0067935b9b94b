import WorkbenchDirect

/// What a resize asks of libvips' thumbnail, made once by the resize (`ResizeStage.request`):
/// the box, how it is filled, the crop, and how much larger than the box a JPEG's DCT scale
/// leaves the image. libvips' arguments, the DCT scale and the reduction libvips would do after
/// it are all read from this one value.
struct ThumbnailRequest: Sendable, Equatable {
    /// libvips' `size`: shrink only, shrink or enlarge, or stretch to the box.
    enum Size: String, Sendable { case down, both, force }

    /// libvips' convention for "no limit" on one axis (pyvips passes the same value).
    static let unbounded = 10_000_000

    var width: Int
    var height = Self.unbounded
    var size = Size.down
    /// What a cover crop keeps (libvips' `interesting`): nil for no crop.
    var crop: String?
    /// 2 is libvips' rule, 1 `fastShrink`; nil leaves the load size to libvips' thumbnail.
    var headroom: Double? = 2

    /// `thumbnail_image`'s (and `thumbnail_buffer`'s) arguments.
    var arguments: [String: VipsArgumentValue] {
        var arguments: [String: VipsArgumentValue] = ["width": .int(width), "height": .int(height), "size": .string(size.rawValue)]
        if let crop { arguments["crop"] = .string(crop) }
        return arguments
    }

    /// The DCT scale a JPEG of `image` pixels is loaded at, and the factor the box asks for on
    /// the tighter axis (a crop fills the box: the looser one). libvips gives the loader
    /// floor(size / shrink) pixels, so `jpegShrink` keeps two on the shorter side; `explain`
    /// says the same from the same numbers. Nil without a headroom.
    func jpegScale(of image: (width: Int, height: Int)) -> (shrink: Int, factor: Double)? {
        guard let headroom else { return nil }
        let scaleX = Double(image.width) / Double(width), scaleY = Double(image.height) / Double(height)
        let factor = crop != nil ? min(scaleX, scaleY) : max(scaleX, scaleY)
        return (Thumbnail.jpegShrink(factor: factor, smallerSide: min(image.width, image.height), headroom: headroom), factor)
    }

    /// The factors `thumbnail_image` reduces an `image`-sized image by on each axis, when all
    /// it does is reduce (libvips 8.14's rule: without a crop, the box's tighter ratio on both
    /// axes; with `size` "force", each axis its own): nil for a crop, an enlargement, or no change.
    func reduction(of image: (width: Int, height: Int)) -> (x: Double, y: Double)? {
        guard crop == nil else { return nil }
        let ratioX = Double(image.width) / Double(width), ratioY = Double(image.height) / Double(height)
        let shrink = size == .force ? (x: ratioX, y: ratioY) : (x: max(ratioX, ratioY), y: max(ratioX, ratioY))
        guard shrink.x >= 1, shrink.y >= 1, shrink.x > 1 || shrink.y > 1 else { return nil }
        return shrink
    }
}
