import Foundation

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

    /// The pause before attempt `attempt + 1` after `error`, or nil when it is not retried: the
    /// backoff with jitter, at least the server's Retry-After, at most five minutes.
    func delay(after error: any Error, attempt: Int) -> Double? {
        guard attempt <= retries, let retryable = error as? any RetryableError, retryable.isRetryable else { return nil }
        let base = delay * pow(2, Double(attempt - 1))
        return min(300, max(retryable.retryAfter ?? 0, base * Double.random(in: 0.5...1.5)))
    }
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
    /// Set when the node is a copy made by `"foreach"`.
    public var copy: NodeCopy? = nil
    /// What the planner decided for it (`GraphPlanner`).
    public var plan = NodePlan()
}
