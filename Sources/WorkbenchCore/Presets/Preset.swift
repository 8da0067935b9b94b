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
}

/// Where a preset's items come from.
public enum InputSource: Sendable, Equatable {
    /// URLs or paths, in order.
    case list([String])
    /// A glob pattern relative to the preset's folder.
    case glob(String)
    /// A text file with one URL or path per line (`#` starts a comment).
    case file(String)
    /// Item name → URL or path, in file order.
    case map([MapEntry])

    public struct MapEntry: Sendable, Equatable {
        public let name: String
        public let source: String
    }
}

/// Dispatch's quality-of-service classes, highest first.
public enum QoS: String, Sendable, CaseIterable, Comparable {
    case userInteractive, userInitiated, utility, background

    /// Larger is more urgent.
    public var rank: Int {
        switch self {
        case .userInteractive: return 3
        case .userInitiated: return 2
        case .utility: return 1
        case .background: return 0
        }
    }

    public static func < (a: QoS, b: QoS) -> Bool { a.rank < b.rank }
}

/// A named stage queue: how many of its nodes may run at once, and how urgent they are.
public struct QueueSpec: Sendable, Equatable {
    public enum Concurrency: Sendable, Equatable {
        case fixed(Int)
        /// As many as the machine has cores.
        case auto
    }

    public let name: String
    public let concurrency: Concurrency
    public let qos: QoS

    public init(name: String, concurrency: Concurrency, qos: QoS) {
        self.name = name
        self.concurrency = concurrency
        self.qos = qos
    }

    /// The queues every preset has unless it redefines them.
    public static let defaults: [QueueSpec] = [
        QueueSpec(name: "net", concurrency: .fixed(8), qos: .utility),
        QueueSpec(name: "cpu", concurrency: .auto, qos: .userInitiated),
        QueueSpec(name: "disk", concurrency: .fixed(2), qos: .utility),
    ]
}

/// Whether a node runs once per item or once for the whole run.
public enum NodeScope: String, Sendable {
    case item, run
}

/// An edge into a node: where a payload comes from and where the stage finds it.
public struct NodeInput: Sendable, Equatable {
    public enum Slot: Sendable, Equatable {
        /// Position `i` of the node's `from` list.
        case from(Int)
        /// A reference parameter (`"@id"`), or a fan-in (`"@id[*]"`) collecting every item's output.
        case reference(String, fanIn: Bool)
    }

    public let node: String
    public let slot: Slot
}

/// How the scheduler treats a node: its time limit and its retries.
public struct NodeRetry: Sendable, Equatable {
    /// Attempts after the first, for errors that say they are worth retrying.
    public let retries: Int
    /// The first backoff in seconds; it doubles per attempt, with ±50% jitter.
    public let delay: Double

    public static let none = NodeRetry(retries: 0, delay: 1)
}

/// One node of the preset graph, instantiated once per item (or once per run).
public struct NodeSpec: Sendable {
    public let id: String
    public let op: OpSpec
    public let queue: String
    public let scope: NodeScope
    /// Upstream node ids of `from`, in the order the op receives their payloads.
    public let from: [String]
    /// Every edge into the node: `from` entries first, then references.
    public let inputs: [NodeInput]
    public let parameters: ParameterValues
    /// Seconds a run of the body may take before the node fails, or nil for no limit.
    public let timeout: Double?
    public let retry: NodeRetry
    /// The op bound to `parameters`.
    public let stage: any Stage
    /// The JSON path of the node, e.g. `graph[2]`.
    public let path: String
}
