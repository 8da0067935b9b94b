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

/// How far a running node has got, for progress displays: bytes a download has moved, or
/// pixels an encode has computed.
public struct ProgressEvent: Sendable {
    /// What `bytes` and `expectedBytes` count.
    public enum Unit: Sendable {
        case bytes, pixels
    }

    public let item: Item
    public let node: String
    /// Done so far, in `unit`s.
    public let bytes: Int
    /// The total, when known (a download's Content-Length, an image's pixels).
    public let expectedBytes: Int?
    public let unit: Unit

    public init(item: Item, node: String, bytes: Int, expectedBytes: Int?, unit: Unit = .bytes) {
        self.item = item
        self.node = node
        self.bytes = bytes
        self.expectedBytes = expectedBytes
        self.unit = unit
    }
}

/// How one item ended.
public struct ItemReport: Sendable {
    public enum Status: String, Sendable {
        /// `upToDate`: every file was already what this run would make; nothing was written.
        case succeeded, failed, cancelled, upToDate
    }

    public let item: Item
    public let status: Status
    /// Files written for the item.
    public let files: [OutputFile]
    /// Files left as they were, their recipes unchanged (as the manifest recorded them).
    public let upToDate: [OutputFile]
    public let bytesWritten: Int
    /// The node that failed and why, when `status` is `failed`.
    public let failure: (node: String, message: String)?
    /// Seconds from the item's first node starting to its last node ending.
    public let duration: Double
    /// What went wrong without failing it (a decoder working around damage), as "node: text".
    public let warnings: [String]
    /// What the input was when it was read, for incremental runs.
    public let identity: InputIdentity?

    public init(item: Item, status: Status, files: [OutputFile], upToDate: [OutputFile] = [], bytesWritten: Int,
                failure: (node: String, message: String)?, duration: Double, warnings: [String] = [],
                identity: InputIdentity? = nil) {
        self.item = item
        self.status = status
        self.files = files
        self.upToDate = upToDate
        self.bytesWritten = bytesWritten
        self.failure = failure
        self.duration = duration
        self.warnings = warnings
        self.identity = identity
    }

    /// Paths of the files written, relative to the output root.
    public var outputs: [String] { files.map(\.path) }

    /// The same report with more warnings (found after the item ended, e.g. by the manifest).
    func adding(warnings more: [String]) -> ItemReport {
        ItemReport(item: item, status: status, files: files, upToDate: upToDate, bytesWritten: bytesWritten,
                   failure: failure, duration: duration, warnings: warnings + more, identity: identity)
    }
}

/// How one run-scope node ended, for nodes whose outcome matters on its own: those that wrote
/// a file (a contact sheet) and those that failed or were skipped.
public struct RunNodeReport: Sendable {
    public let node: String
    public let state: NodeState
    /// The file it wrote, relative to the output root.
    public let output: String?
    public let bytesWritten: Int
    /// The node that failed first and why (the node itself, or one upstream of it).
    public let failure: (node: String, message: String)?

    public init(node: String, state: NodeState, output: String? = nil, bytesWritten: Int = 0,
                failure: (node: String, message: String)? = nil) {
        self.node = node
        self.state = state
        self.output = output
        self.bytesWritten = bytesWritten
        self.failure = failure
    }
}

/// What a whole run did.
public struct RunSummary: Sendable {
    /// Why the run ended.
    public enum Ending: String, Sendable {
        /// Every item ran to the end.
        case completed
        /// Cancelled: a signal, `cancel()`, or the caller's `Task` was cancelled.
        case interrupted
        /// Stopped at the first failure (`failFast`).
        case failedFast
        /// Stopped by a failure that no later item could avoid (a full output disk); see `stopReason`.
        case stoppedByFailure
    }

    public let items: Int
    public let succeeded: Int
    public let failed: Int
    public let cancelled: Int
    /// Items with nothing to redo (incremental runs).
    public let upToDate: Int
    /// Node instances that ran their body to the end, all attempts counted once.
    public let nodesRun: Int
    public let bytesWritten: Int
    public let duration: Double
    public let ending: Ending
    /// Run-scope nodes that wrote a file, failed or were skipped, in graph order.
    public let runNodes: [RunNodeReport]
    /// Why the run stopped early, when `ending` is `stoppedByFailure`.
    public let stopReason: String?
    /// Why the manifest could not be written, if it could not (the next run then redoes all).
    public var manifestProblem: String?

    public init(items: Int, succeeded: Int, failed: Int, cancelled: Int, upToDate: Int = 0, nodesRun: Int, bytesWritten: Int,
                duration: Double, ending: Ending, runNodes: [RunNodeReport] = [], stopReason: String? = nil) {
        self.stopReason = stopReason
        self.upToDate = upToDate
        self.items = items
        self.succeeded = succeeded
        self.failed = failed
        self.cancelled = cancelled
        self.nodesRun = nodesRun
        self.bytesWritten = bytesWritten
        self.duration = duration
        self.ending = ending
        self.runNodes = runNodes
    }

    public var wasCancelled: Bool { ending == .interrupted }

    /// Run-scope nodes that failed or were skipped.
    public var failedRunNodes: [RunNodeReport] { runNodes.filter { $0.state == .failed || $0.state == .skipped } }

    /// 0 all succeeded, 1 some items or run-scope nodes failed (or the manifest could not be
    /// written), 130 interrupted.
    public var exitCode: Int32 {
        if ending == .interrupted { return 130 }
        return failed > 0 || !failedRunNodes.isEmpty || ending == .failedFast || ending == .stoppedByFailure
            || manifestProblem != nil ? 1 : 0
    }
}

/// Everything a run reports, in order, for reporters and library callers.
public enum RunEvent: Sendable {
    /// `items` is nil when the input list is streamed and its length is not known yet.
    case runStarted(items: Int?, nodesPerItem: Int)
    case node(NodeEvent)
    case itemFinished(ItemReport)
    /// A running node's progress (with `RunOptions.EventDetail.nodes`).
    case progress(ProgressEvent)
    case runFinished(RunSummary)
}

extension Item {
    /// The stand-in item of run-scope nodes.
    public static let run = Item(index: -1, name: "run", source: "")
}
