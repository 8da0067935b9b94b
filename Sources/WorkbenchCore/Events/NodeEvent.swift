/// The lifecycle states of a node instance (one node of the graph for one item, or for the run).
public enum NodeState: String, Sendable {
    /// `upToDate`: left out because the files it leads to are already what it would make.
    case pending, ready, running, succeeded, failed, cancelled, skipped, upToDate

    public var isTerminal: Bool {
        switch self {
        case .succeeded, .failed, .cancelled, .skipped, .upToDate: return true
        case .pending, .ready, .running: return false
        }
    }
}

/// A node instance changed state.
public struct NodeEvent: Sendable {
    /// The item; for run-scope nodes the stand-in `Item.run`.
    public let item: Item
    public let node: String
    public let queue: String
    public let state: NodeState
    /// Seconds since the run started.
    public let time: Double
    /// 1 for the first attempt; more after retries.
    public let attempt: Int
    /// Why: the error for `failed`, the failed upstream for `skipped`, the backoff for a retry.
    public let message: String?
    /// Where and when the body ran, on the event that ends a body (`succeeded`, `failed`,
    /// `cancelled`, or `pending` before a retry).
    public var span: NodeSpan? = nil
}

/// Where and when a node's body ran: for timelines (`--trace`) and timings (`--report`).
public struct NodeSpan: Sendable {
    /// The thread (or transfer) that ran it.
    public enum Lane: Sendable, Hashable {
        /// A CPU worker, by number.
        case cpu(Int)
        /// An I/O thread, by number.
        case io(Int)
        /// Work that runs without a thread of its own (a download on the network loop).
        case async

        public var name: String {
            switch self {
            case .cpu(let n): return "cpu \(n)"
            case .io(let n): return "io \(n)"
            case .async: return "network"
            }
        }
    }

    public let lane: Lane
    /// Seconds since the run started.
    public let start: Double
    public let end: Double

    public init(lane: Lane, start: Double, end: Double) {
        self.lane = lane
        self.start = start
        self.end = end
    }
}
