/// `write`: puts encoded bytes at a templated path under the output root, atomically.
struct WriteStage: Stage {
    static let spec = OpSpec(
        name: "write", summary: "Writes the bytes atomically to a path under the output root.",
        input: .bytes, output: .file, defaultQueue: "disk", execution: .io,
        parameters: [
            ParameterSpec("path", .pathTemplate, required: true,
                          "Destination relative to the output root; may use {name} {stem} {ext} {index} {hash}."),
        ])

    static let definition = OpDefinition(spec) { WriteStage(template: $0.string("path") ?? "{name}") }

    let template: String

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        guard case .bytes(let bytes)? = inputs.first else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "bytes")
        }
        let relative = try PathTemplate(template).render(for: context.item)
        let destination = try context.output.claim(relative, for: context.item)
        try AtomicFile.write(bytes, to: destination, cancellation: context.cancellation)
        return .file(relativePath: relative, byteCount: bytes.data.count)
    }
}

/// The ops Core itself provides.
public enum CoreOps {
    public static let all: [OpDefinition] = [ReadStage.definition, WriteStage.definition]
}
