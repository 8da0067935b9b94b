import WorkbenchCore

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

    /// The fit of an image of `image` pixels (as stored: the JPEG path takes upright files
    /// only) into this box: the factor, the DCT scale a JPEG is loaded at when `dctScaled` and
    /// the request has a headroom, and the reduce libvips' thumbnail would do after it. libvips
    /// gives the loader floor(size / shrink) pixels; `explain` reads the same value.
    func geometry(of image: FitGeometry.Size, orientation: Int = 1, dctScaled: Bool = true) -> FitGeometry {
        FitGeometry(image: image, orientation: orientation, width: width == Self.unbounded ? nil : width,
                    height: height == Self.unbounded ? nil : height,
                    filling: crop != nil ? .cover : size == .force ? .stretch : .contain, headroom: dctScaled ? headroom : nil)
    }
}
