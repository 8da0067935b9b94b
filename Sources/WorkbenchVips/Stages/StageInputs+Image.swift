import WorkbenchCore

extension StageInputs {
    /// The libvips image this node's `from` input carries.
    func image(_ context: StageContext) throws -> VipsImage {
        guard case .image(let handle)? = first, let image = handle as? VipsImage else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "a libvips image")
        }
        return image
    }
}
