import WorkbenchCore

/// The libvips path: an image libvips decoded, or a decode left to this resize.
extension ResizeStage {
    /// `image` (what `input` carries) resized by libvips: `resize` for a scale; for a box,
    /// decoded and shrunk in one step when the decode was left here (`fusedThumbnail`), else
    /// `thumbnail_image`.
    func libvips(_ input: Payload?, image: VipsImage, context: StageContext) throws -> Payload {
        if let scale = parameters.scale {
            return .image(try VipsOperationCall.image("resize", image, ["scale": .double(scale)]))
        }
        let request = request(for: image)
        if case .shrinkable(let shrinkable)? = StageImage(input) {
            if let fused = try fusedThumbnail(shrinkable.source, request, image: image, context: context) { return .image(fused) }
            context.recordDecode(DecodeNote.whole(image))
            // The decode left the memory check to this step, which decodes the whole image after all.
            try VipsDecoding.checkMemory(shrinkable.source)
        }
        // A smart crop measures the image as the operation is built.
        let resized = try VipsOperationCall.image("thumbnail_image", image, request.arguments, cancellation: context.cancellation)
        // Several readers would each compute the lazy pipeline again: compute it once, if it fits.
        return .image(keepsResult && resized.width * resized.height <= Self.memoryLimit ? try kept(resized, context) : resized)
    }

    /// What this resize asks of libvips' thumbnail for `image`: the box, or the size the full
    /// image would get when this resize is made from a larger one's result.
    private func request(for image: VipsImage) -> ThumbnailRequest {
        if madeFromLarger, let size = sizeFromFullImage(image) {
            return ThumbnailRequest(width: size.width, height: size.height, size: .force, headroom: nil)
        }
        return request
    }

    /// What this resize asks of libvips' thumbnail of the full image: its box, how it fills it,
    /// its crop, its DCT scale's headroom.
    var request: ThumbnailRequest {
        ThumbnailRequest(width: parameters.width ?? Self.unbounded, height: parameters.height ?? Self.unbounded,
                         size: parameters.fit == .fill ? .force : parameters.upscale ? .both : .down,
                         crop: parameters.fit == .cover ? parameters.crop.rawValue : nil,
                         headroom: parameters.fit == .fill ? nil : parameters.fastShrink ? 1 : 2)
    }

    /// Decoded and shrunk in one step from the bytes (shrink-on-load), when the decode was
    /// left to this resize; nil when that does not apply. It streams, so a result read more
    /// than once is kept in memory — and only a small one is made this way.
    private func fusedThumbnail(_ source: DecodedSource, _ request: ThumbnailRequest, image: VipsImage,
                                context: StageContext) throws -> VipsImage? {
        guard outputIsReadOnce || expectedPixels(of: image) <= Self.memoryLimit,
              let fused = try VipsDecoding.thumbnail(source, request, cancellation: context.cancellation,
                                                     warned: { context.warn($0, node: source.node) })
        else { return nil }
        context.recordDecode(DecodeNote.fused(fused, loadedAs: image, box: (parameters.width, parameters.height)))
        return outputIsReadOnce ? fused : try kept(fused, context)
    }

    /// `image`'s pixels computed now and kept in memory, still knowing where they came from.
    private func kept(_ image: VipsImage, _ context: StageContext) throws -> VipsImage {
        let (kept, warnings) = try image.inMemory(cancellation: context.cancellation)
        // Read now, the pixels tell of damage the decoder worked around: the decode's.
        for warning in warnings { context.warn(warning, node: image.origin?.node) }
        return kept.relabelled(origin: image.origin, depth: 0)
    }
}
