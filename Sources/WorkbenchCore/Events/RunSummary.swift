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
        /// The system refused what the run needed to go on at all (a thread, under an
        /// address-space limit); see `stopReason`. Exit status 2, as for a run that cannot start.
        case outOfResources
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
    /// written), 2 the system refused what the run needed, 130 interrupted.
    public var exitCode: Int32 {
        if ending == .interrupted { return 130 }
        if ending == .outOfResources { return 2 }
        return failed > 0 || !failedRunNodes.isEmpty || ending == .failedFast || ending == .stoppedByFailure
            || manifestProblem != nil ? 1 : 0
    }
}
