import WorkbenchCore

extension StageInputs {
    /// The libvips image this node's `from` input carries.
    func image(_ context: StageContext) throws -> VipsImage {
        guard case .image(let handle)? = first else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "a libvips image")
        }
        if let image = handle as? VipsImage { return image }
        if let shrinkable = handle as? ShrinkableImage { return shrinkable.image }
        throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "a libvips image")
    }
}
