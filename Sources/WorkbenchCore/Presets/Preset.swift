/// A loaded, validated preset: inputs, queues and the per-item graph of nodes.
public struct Preset: Sendable {
    /// The file the preset was read from.
    public let file: String
    /// The folder relative input paths and globs are resolved against (the preset's folder).
    public let baseDirectory: String
    public let name: String?
    public let summary: String?
    public let inputs: InputSource?
    /// The `output` key: the output root when `--out` is not given (relative to the current folder).
    public let output: String?
    public let queues: [QueueSpec]
    /// Nodes in an order where every node comes after the nodes it reads from.
    public let nodes: [NodeSpec]
    /// Problems that do not stop a run (e.g. a result nobody uses).
    public let warnings: [Diagnostic]
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

/// One node of the preset graph, instantiated once per item.
public struct NodeSpec: Sendable {
    public let id: String
    public let op: OpSpec
    public let queue: String
    /// Upstream node ids, in the order the op receives their payloads.
    public let from: [String]
    public let parameters: ParameterValues
    /// The op bound to `parameters`.
    public let stage: any Stage
    /// The JSON path of the node, e.g. `graph[2]`.
    public let path: String
}
