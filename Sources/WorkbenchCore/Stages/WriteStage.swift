import Foundation

/// `write`: puts encoded bytes at a templated path under the output root, atomically.
struct WriteStage: Stage {
    static let spec = OpSpec(
        name: "write", summary: "Writes the bytes atomically to a path under the output root.",
        input: .bytes, output: .file, defaultQueue: "disk", execution: .io,
        parameters: [
            ParameterSpec("path", .pathTemplate, required: true,
                          "Destination relative to the output root; may use {name} {stem} {ext} {index} {hash} {dir} and the variables of a \"foreach\" on this node or upstream ({w})."),
        ])

    static let definition = OpDefinition(spec) { WriteStage(template: $0.string("path") ?? "{name}") }

    let template: String
    /// Parsed once, not per item; validation refuses a template that does not parse before a
    /// run starts, and should one get here, each item fails with the reason as before.
    private let parsed: Result<PathTemplate, TemplateError>

    init(template: String) {
        self.template = template
        parsed = Result { () throws(TemplateError) in try PathTemplate(template) }
    }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        guard case .bytes(let bytes)? = inputs.first else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "bytes")
        }
        var relative = try parsed.get().render(for: context.item)
        if context.item.index < 0, let suffix = context.shared.runFileSuffix { relative = Self.inserting(suffix, into: relative) }
        let destination = try context.output.claim(relative, for: context.item)
        try AtomicFile.write(bytes, to: destination, cancellation: context.cancellation)
        return .file(OutputFile(path: relative, node: context.nodeID, bytes: bytes.data.count,
                                width: bytes.image?.width, height: bytes.image?.height, format: bytes.image?.format))
    }

    /// `sheet.jpg` → `sheet.shard-0-of-4.jpg`.
    static func inserting(_ suffix: String, into path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        let renamed = stem + "." + suffix + (ext.isEmpty ? "" : "." + ext)
        return folder.isEmpty ? renamed : folder + "/" + renamed
    }
}
