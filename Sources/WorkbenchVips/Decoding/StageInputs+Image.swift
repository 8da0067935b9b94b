import WorkbenchCore

extension StageInputs {
    /// The libvips image this node's `from` input carries.
    func image(_ context: StageContext) throws -> VipsImage {
        guard let image = try StageImage(first)?.libvipsImage(context) else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "a libvips image")
        }
        return image
    }
}

extension VipsImage {
    /// How many operations deep a lazy pipeline may grow before its pixels are computed into
    /// memory. libvips computes a region by recursing once per stage above it, about 250 bytes
    /// of a worker thread's stack each (measured: 20,000 `flip`s run, 40,000 overflow 8 MiB);
    /// one operation of ours can be a dozen stages (`thumbnail`, `sharpen`), so 256 leaves a
    /// wide margin and costs nothing to a preset of ordinary length.
    static let deepestPipeline = 256

    /// This image, or its pixels in memory once its pipeline is `deepestPipeline` deep: a
    /// preset of a hundred thousand nodes runs as many short pipelines, not one deep one.
    func shallow(_ context: StageContext) throws -> VipsImage {
        guard depth >= Self.deepestPipeline else { return self }
        let (copy, warnings) = try inMemory(cancellation: context.cancellation)
        // Damage found now belongs to the decode, as it would when encoding.
        for warning in warnings { context.warn(warning, node: origin?.node) }
        return copy.relabelled(origin: origin, depth: 0)
    }
}
