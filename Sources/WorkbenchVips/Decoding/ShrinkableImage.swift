import WorkbenchCore

/// What `decode` hands a `thumbnail` or `resize` that the plan fused with it (the resize is
/// the decode's only reader, `NodePlan.fusedInto`): the image as decoded (its header
/// read, no pixels yet) and the bytes and settings it came from, so the resize can decode and
/// shrink in one step from the bytes (shrink-on-load) instead of resampling the full decode.
final class ShrinkableImage: ImageHandle {
    let image: VipsImage
    let source: DecodedSource

    init(_ image: VipsImage, source: DecodedSource) {
        self.image = image
        self.source = source
    }

    var width: Int { image.width }
    var height: Int { image.height }
    var bands: Int { image.bands }
}
