import WorkbenchCore

/// An image as this module's stages meet it, one case per kind of handle its stages make: the
/// one place that tells them apart (`Payload.image` carries `any ImageHandle`, whose kinds the
/// core cannot name), so a stage switches over cases instead of trying casts.
enum StageImage {
    /// A libvips image (lazy, or computed and kept).
    case vips(VipsImage)
    /// A decode left to the resize reading it alone, which decodes and shrinks in one step.
    case shrinkable(ShrinkableImage)
    /// A JPEG the plan gave to the direct path, not decoded yet.
    case directSource(DirectSource)
    /// Pixels the direct path made.
    case direct(DirectImage)

    /// The image `payload` carries; nil for another payload, or a handle no stage here made.
    init?(_ payload: Payload?) {
        guard case .image(let handle)? = payload else { return nil }
        switch handle {
        case let image as VipsImage: self = .vips(image)
        case let image as ShrinkableImage: self = .shrinkable(image)
        case let image as DirectSource: self = .directSource(image)
        case let image as DirectImage: self = .direct(image)
        default: return nil
        }
    }

    /// As a libvips image, for a stage that only works on those: a decode left to a resize or
    /// to the direct path is the decode libvips would have made. Nil for the direct path's
    /// pixels, which only its encode reads.
    func libvipsImage(_ context: StageContext) throws -> VipsImage? {
        switch self {
        case .vips(let image): return try image.shallow(context)
        case .shrinkable(let image): return try image.image.shallow(context)
        case .directSource(let source): return try source.decodedByLibvips().image.shallow(context)
        case .direct: return nil
        }
    }
}
