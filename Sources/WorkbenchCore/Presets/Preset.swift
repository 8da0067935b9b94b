/// A loaded, validated preset: inputs, queues and the per-item graph of nodes.
public struct Preset: Sendable {
    /// The file the preset was read from.
    public let file: String
    /// The folder relative input paths and globs are resolved against (the preset's folder).
    public let baseDirectory: String
    public let name: String?
    public let summary: String?
    public let inputs: InputSource?
    /// The `output` key: the output root when `--out` is not given (relative to the preset's folder).
    public let output: String?
    /// `output` as an absolute path: relative to the preset's folder, like `inputs`.
    public var outputFolder: String? { output.map { InputExpansion.resolve($0, relativeTo: baseDirectory) } }
    public let queues: [QueueSpec]
    /// Nodes in an order where every node comes after the nodes it reads from.
    public let nodes: [NodeSpec]
    /// Problems that do not stop a run (e.g. a result nobody uses).
    public let warnings: [Diagnostic]
    /// The preset's own filters (named sub-graphs), as ops for listings: image in, image out.
    public var filters: [OpSpec] = []
    /// The `s3` key: where `s3://` inputs and outputs are reached, when not where the
    /// environment says.
    public var bucket: BucketSettings?
    /// The queues the preset's `queues` key names (the others are the defaults).
    public var definedQueues: Set<String> = []
}

extension Preset {
    /// The same preset with `queue` in place of the queue of that name, unless the preset
    /// defines that queue itself (a bucket output gives `disk` more uploads in flight).
    public func withDefault(_ queue: QueueSpec) -> Preset {
        guard !definedQueues.contains(queue.name) else { return self }
        var copy = Preset(file: file, baseDirectory: baseDirectory, name: name, summary: summary, inputs: inputs, output: output,
                          queues: queues.map { $0.name == queue.name ? queue : $0 }, nodes: nodes, warnings: warnings,
                          filters: filters, bucket: bucket)
        copy.definedQueues = definedQueues
        return copy
    }
}

/// A preset's `"s3": { "endpoint": …, "region": …, "pathStyle": … }`: a custom endpoint (MinIO,
/// Ceph, R2, Google Cloud Storage), the region to sign for, path-style addressing. Never
/// credentials: those come from the environment or the AWS shared files.
public struct BucketSettings: Sendable, Equatable {
    public var endpoint: String?
    public var region: String?
    public var pathStyle: Bool?

    public init(endpoint: String? = nil, region: String? = nil, pathStyle: Bool? = nil) {
        self.endpoint = endpoint
        self.region = region
        self.pathStyle = pathStyle
    }
}

extension Preset {
    /// The item-scope `read` node that takes each item as a local file, if the preset has one.
    var itemReader: NodeSpec? {
        nodes.first { $0.op.name == "read" && $0.scope == .item && $0.parameters.string("path") == nil }
    }

    /// Why `source` cannot be an item of this preset — a URL, where items are read by `read` —
    /// or nil. Found before the run, so the mistake is reported once and not per item.
    public func refusal(ofInput source: String) -> String? {
        guard Item.hasScheme(source), !source.hasPrefix("file://"), let reader = itemReader else { return nil }
        return "\"\(source)\" is a URL, but \"\(reader.id)\" (\(reader.path)) is a \"read\", which takes local files; "
            + "make it {\"op\": \"download\"}, which takes URLs and paths alike"
    }
}
