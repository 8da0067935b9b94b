/// What one worker holds for an item of a preset's plan, beyond what a photo decoded at a
/// small DCT scale takes: for the memory check before a run (`ProcessLimits.refusalToRun`).
///
/// Worked out from the plan alone, for the photos the check assumes (up to 16 megapixels,
/// 4896 × 3264): the decode at the scale the largest fit leaves (YCbCr planes, 1.5 bytes a
/// pixel), every result kept for several readers (4 bytes a pixel), and the largest encoder's
/// buffers (`OpSpec.heldBytes`), and 16 MiB of rows, tiles and libvips' own. The srcset (1920 px
/// wide, WebP and JPEG) comes to 69 MiB a worker where about 48 were measured on the 25 reference
/// photos; a 512 px thumbnail to the 32 MiB that was always reserved.
public enum RunFootprint {
    /// The photo the check assumes.
    static let photo = (width: 4896, height: 3264)
    /// What a worker always has in flight: a photo decoded at a small scale, rows, libvips' tiles.
    public static let baseline = ProcessLimits.photoInFlight

    /// Bytes a worker holds for one item of `preset` at most (at least `baseline`).
    public static func perWorker(_ preset: Preset) -> Int {
        let nodes = preset.nodes.filter { $0.scope == .item }
        var pixels: [String: Int] = [:]
        let full = photo.width * photo.height
        // Fits first: planning may have a fit read one declared after it (the cascade).
        for node in nodes {
            if let size = fitPixels(node) { pixels[node.id] = size }
        }
        for node in nodes where pixels[node.id] == nil {
            pixels[node.id] = node.inputs.compactMap { pixels[$0.node] }.max() ?? full
        }
        // The decode: at the DCT scale that leaves twice the largest fit it feeds.
        var decode = 0
        for node in nodes where node.op.shrinksOnLoad {
            let fed = node.plan.fusedInto.flatMap { pixels[$0] } ?? full
            decode = max(decode, Int(1.5 * Double(full / scaleSquared(for: fed))))
        }
        let kept = nodes.filter { $0.plan.readers > 1 && $0.op.output == .image }.reduce(0) { $0 + 4 * (pixels[$1.id] ?? full) }
        let encoder = nodes.compactMap { node in node.op.heldBytes?(node.parameters, pixels[node.id] ?? full) }.max() ?? 0
        return max(baseline, (16 << 20) + decode + kept + encoder)
    }

    /// The pixels a fit's box holds for the assumed photo (a free axis in the photo's 3:2).
    private static func fitPixels(_ node: NodeSpec) -> Int? {
        guard let request = node.op.resizeRequest?(node.parameters) else { return nil }
        if let scale = request.scale { return Int(Double(photo.width * photo.height) * min(1, scale * scale)) }
        let width = request.width ?? (request.height.map { $0 * 3 / 2 } ?? photo.width)
        let height = request.height ?? width * 2 / 3
        return min(photo.width * photo.height, width * height)
    }

    /// The square of the DCT scale's divisor (1, 4, 16, 64) libvips' rule takes for a result of `pixels`.
    private static func scaleSquared(for pixels: Int) -> Int {
        let full = photo.width * photo.height
        for shrink in [8, 4, 2] where full / (shrink * shrink) >= 4 * pixels { return shrink * shrink }
        return 1
    }
}
