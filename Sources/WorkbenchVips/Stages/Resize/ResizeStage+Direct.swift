import WorkbenchCore
import WorkbenchDirect

/// The direct path's two ways: a JPEG the decode left to it, and a larger fit's pixels.
extension ResizeStage {
    /// The thumbnail of a JPEG on the direct path: libjpeg at a DCT scale, our Lanczos-3, turned
    /// upright last; nil, after saying why under `--verbose`, when the file cannot be finished
    /// there.
    func directThumbnail(_ source: DirectSource, context: StageContext) -> DirectImage? {
        do {
            // A turned photo is sized in its stored orientation and turned last; libvips' own
            // thumbnail, which takes such files, keeps its twice-the-target headroom.
            let orientation = source.header.orientation
            let thumbnail = Thumbnail(source.header, width: parameters.width, height: parameters.height,
                                      fast: parameters.fastShrink && orientation == 1)
            let geometry = thumbnail.geometry
            let pixels: DirectImage.Pixels
            // Planes only when there is a reduce: a photo kept at its size is decoded, turned
            // and encoded exactly as libvips would (the same bytes).
            let planar = source.keepsPlanes && geometry.reduces
            if planar {
                pixels = .planes(try thumbnail.makePlanes(from: source.bytes.data).upright(from: orientation))
            } else {
                var made = try thumbnail.make(from: source.bytes.data, header: source.header)
                // Colours converted after the resize, as libvips' thumbnail converts them.
                source.transform?.apply(to: &made)
                pixels = .interleaved(made.upright(from: orientation))
            }
            let image = DirectImage(pixels, node: source.node, fullWidth: source.width, fullHeight: source.height, profile: source.profile)
            context.recordDecode(DecodeNote.direct(geometry, to: (image.width, image.height), planar: planar, orientation: orientation,
                                                   converted: source.transform != nil))
            return image
        } catch {
            context.logger.debug("\(context.item.name): direct path declined (\(error)); libvips decodes it")
            return nil
        }
    }

    /// A larger fit's pixels on the direct path (the planner's cascade, or a fit written after
    /// another), made smaller: sized from the whole file when cascaded, as libvips' thumbnail
    /// of the file would be, else from these pixels.
    func reduced(_ image: DirectImage, context: StageContext) throws -> DirectImage {
        guard parameters.fitBox != nil else {
            // The planner gives the direct path's pixels only to fits.
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "an image libvips made (the direct path only fits)")
        }
        let basis = madeFromLarger ? FitGeometry.Size(image.fullWidth, image.fullHeight) : FitGeometry.Size(image.width, image.height)
        guard let size = fitted(basis), size.width < image.width || size.height < image.height else { return image }
        let planes = if case .planes = image.pixels { " in YCbCr planes" } else { "" }
        context.logger.debug("\(context.item.name): direct path: Lanczos-3 from \(image.width)×\(image.height) to \(size.width)×\(size.height)\(planes)")
        return image.reduced(width: min(size.width, image.width), height: min(size.height, image.height))
    }
}
