/// How the run went: items and bodies counted as they end, how it ended, and the summary once
/// nothing more can happen.
struct Tally {
    var succeeded = 0, failed = 0, cancelled = 0, upToDate = 0
    var nodesRun = 0
    var bytes = 0
    var ending = RunSummary.Ending.completed
    /// The failure that stopped the run, if one did.
    var stopReason: String?
    /// Set once, at the end.
    private(set) var summary: RunSummary?
    /// After a stop: the window and instances as they were, for the leftovers report.
    var leftovers: (slots: [ItemWindow.Slot], instances: [NodeInstance])?
    /// Set by a stop: nothing moves on, running bodies are waited for.
    var stopping = false
    /// Callers awaiting the summary (`RunScheduler.result()`).
    var waiters: [CheckedContinuation<RunSummary, Never>] = []

    var isFinished: Bool { summary != nil }
    /// Neither stopping nor finished: things still move on.
    var isRunning: Bool { !stopping && summary == nil }

    /// The input list failed part way: the items taken so far run to their end, and the run
    /// then ends failed, saying why.
    mutating func listFailed(_ failure: String) {
        ending = .stoppedByFailure
        stopReason = failure
    }

    /// Starts a stop for `why`; false when the run is stopping or finished already.
    mutating func stop(_ why: RunSummary.Ending) -> Bool {
        guard isRunning else { return false }
        stopping = true
        ending = why
        return true
    }

    /// The summary, or an empty one for a run that ended before it counted anything.
    var summaryOrEmpty: RunSummary {
        summary ?? RunSummary(items: 0, succeeded: 0, failed: 0, cancelled: 0, nodesRun: 0, bytesWritten: 0, duration: 0, ending: ending)
    }

    /// The summary, if the run has ended and nothing is left to report; else `waiter` is handed
    /// it at the end.
    mutating func summaryOrWait(_ waiter: CheckedContinuation<RunSummary, Never>) -> RunSummary? {
        if let summary, leftovers == nil { return summary }
        waiters.append(waiter)
        return nil
    }

    /// Once the run has finished: the summary, the callers to hand it to and what a stop left
    /// (each handed out once, to be delivered outside the lock).
    mutating func takeEnd() -> (summary: RunSummary, waiters: [CheckedContinuation<RunSummary, Never>],
                                leftovers: (slots: [ItemWindow.Slot], instances: [NodeInstance])?)? {
        guard let summary else { return nil }
        defer {
            waiters = []
            leftovers = nil
        }
        return (summary, waiters, leftovers)
    }

    mutating func count(_ status: ItemReport.Status, bytes: Int) {
        switch status {
        case .succeeded: succeeded += 1
        case .failed: failed += 1
        case .cancelled: cancelled += 1
        case .upToDate: upToDate += 1
        }
        self.bytes += bytes
    }

    /// Ends the tally: items still in the window after a stop count as failed (if they had
    /// failed) or cancelled.
    mutating func finish(items: Int, duration: Double, runNodes: [RunNodeReport]) -> RunSummary {
        let left = leftovers?.slots.filter { $0.item != nil } ?? []
        let leftFailed = left.count { $0.failure != nil }
        let summary = RunSummary(
            items: items, succeeded: succeeded, failed: failed + leftFailed,
            cancelled: cancelled + left.count - leftFailed, upToDate: upToDate,
            nodesRun: nodesRun, bytesWritten: bytes + (leftovers?.slots.reduce(0) { $0 + $1.bytes } ?? 0),
            duration: duration, ending: ending, runNodes: runNodes, stopReason: stopReason)
        self.summary = summary
        return summary
    }
}
