/// The lifecycle states of a node instance (one node of the graph for one item).
public enum NodeState: String, Sendable {
    case pending, ready, running, succeeded, failed, cancelled, skipped

    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .cancelled, .skipped: return true
        case .pending, .ready, .running: return false
        }
    }
}

/// A node instance changed state.
public struct NodeEvent: Sendable {
    public let item: Item
    public let node: String
    public let queue: String
    public let state: NodeState
    /// Seconds since the run started.
    public let time: Double
    /// The error's description, for `failed`, and the failed upstream node, for `skipped`.
    public let message: String?
}

/// How one item ended.
public struct ItemReport: Sendable {
    public enum Status: String, Sendable {
        case succeeded, failed, cancelled
    }

    public let item: Item
    public let status: Status
    /// Files written for the item, relative to the output root.
    public let outputs: [String]
    public let bytesWritten: Int
    /// The node that failed and why, when `status` is `failed`.
    public let failure: (node: String, message: String)?
    /// Seconds from the item's first node starting to its last node ending.
    public let duration: Double
}

/// What a whole run did.
public struct RunSummary: Sendable {
    public let items: Int
    public let succeeded: Int
    public let failed: Int
    public let cancelled: Int
    public let bytesWritten: Int
    public let duration: Double
    public let wasCancelled: Bool

    /// 0 all succeeded, 1 some items failed, 130 interrupted.
    public var exitCode: Int32 {
        if wasCancelled { return 130 }
        return failed > 0 ? 1 : 0
    }
}

/// Everything a run reports, in order, for reporters and library callers.
public enum RunEvent: Sendable {
    case runStarted(items: Int, nodesPerItem: Int)
    case node(NodeEvent)
    case itemFinished(ItemReport)
    case runFinished(RunSummary)
}
