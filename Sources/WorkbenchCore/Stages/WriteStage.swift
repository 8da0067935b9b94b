import Foundation

/// `write`: puts encoded bytes at a templated path under the output root, atomically.
struct WriteStage: Stage, ClaimsOutput, RecordsOmission {
    /// The op's parameters, each declared once and bound to its field.
    struct Parameters: OpParameters {
        var path: String?
        var cacheControl: String?
        var metadata: [(name: String, value: String)] = []

        static let bindings: [ParameterBinding<Self>] = [
            .string("path", \.path,
                    "Destination relative to the output root; may use {name} {stem} {ext} {index} {hash} {dir} and the variables of a \"foreach\" on this node or upstream ({w}).", type: .pathTemplate, .init(required: true)),
            .string("cacheControl", \.cacheControl,
                    "With an s3:// output: the objects' Cache-Control header, e.g. \"public, max-age=31536000, immutable\"."),
            .stringMap("metadata", \.metadata,
                       "With an s3:// output: user metadata stored with each object (x-amz-meta-NAME), e.g. {\"source\": \"catalogue-2024\"}."),
        ]
    }

    static let spec = OpSpec(
        name: "write", summary: "Writes the bytes atomically to a path under the output root.",
        input: .bytes, output: .file, defaultQueue: "disk", execution: .io,
        parameters: Parameters.specs)

    static let definition = OpDefinition(spec) { values in
        let p = Parameters(values)
        let metadata = p.metadata.reduce(into: [String: String]()) { all, pair in all[pair.name] = pair.value }
        return WriteStage(template: p.path ?? "{name}", cacheControl: p.cacheControl, metadata: metadata)
    }

    let template: String
    let cacheControl: String?
    let metadata: [String: String]
    /// Parsed once, not per item; validation refuses a template that does not parse before a
    /// run starts, and should one get here, each item fails with the reason as before.
    private let parsed: Result<PathTemplate, TemplateError>

    init(template: String, cacheControl: String? = nil, metadata: [String: String] = [:]) {
        self.template = template
        self.cacheControl = cacheControl
        self.metadata = metadata
        parsed = Result { () throws(TemplateError) in try PathTemplate(template) }
    }

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        if case .omitted(let reason)? = inputs.first {
            // Nothing is written, and a file an earlier run left at the path stays as it was.
            let relative = try destination(for: context.item, runFileSuffix: context.shared.runFileSuffix)
            return .file(OutputFile(path: relative, node: context.nodeID, bytes: 0, notMade: reason))
        }
        guard case .bytes(let bytes)? = inputs.first else {
            throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "bytes")
        }
        let relative = try destination(for: context.item, runFileSuffix: context.shared.runFileSuffix)
        let destination = try context.output.claim(relative, node: context.nodeID, for: context.item)
        if let remote = context.output.remote {
            let options = UploadOptions(contentType: UploadOptions.mediaType(of: relative), cacheControl: cacheControl, metadata: metadata)
            try remote.put(bytes, at: destination, options: options, cancellation: context.cancellation)
        } else {
            try AtomicFile.write(bytes, to: destination, cancellation: context.cancellation)
        }
        return .file(OutputFile(path: relative, node: context.nodeID, bytes: bytes.data.count,
                                width: bytes.image?.width, height: bytes.image?.height, format: bytes.image?.format))
    }

    func destination(for item: Item, runFileSuffix: String?) throws -> String {
        let relative = try parsed.get().render(for: item)
        guard item.index < 0, let runFileSuffix else { return relative }
        return Self.inserting(runFileSuffix, into: relative)
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
