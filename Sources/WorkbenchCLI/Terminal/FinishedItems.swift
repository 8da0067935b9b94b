import Synchronization
import WorkbenchCore

/// The items a run has finished so far, for the line a second Ctrl-C prints as the process
/// quits at once (the run's own summary never comes).
final class FinishedItems: Sendable {
    private struct Counts {
        var total: Int?
        var succeeded = 0, upToDate = 0, failed = 0
    }

    private let counts = Mutex(Counts())

    func note(_ event: RunEvent) {
        counts.withLock { c in
            switch event {
            case .runStarted(let items, _): c.total = items
            case .itemFinished(let report):
                switch report.status {
                case .succeeded: c.succeeded += 1
                case .upToDate: c.upToDate += 1
                case .failed: c.failed += 1
                case .cancelled: break
                }
            default: break
            }
        }
    }

    /// `Quit at once: 3 of 25 items done (2 succeeded, 1 up to date); …`.
    var quitLine: String {
        counts.withLock { c in
            let done = c.succeeded + c.upToDate + c.failed
            let parts = [(c.succeeded, "succeeded"), (c.upToDate, "up to date"), (c.failed, "failed")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            return "Quit at once: \(done)\(c.total.map { " of \($0)" } ?? "") item\((c.total ?? done) == 1 ? "" : "s") done"
                + (parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")")
                + "; files written are kept, unfinished ones removed, and running the same command again makes the rest."
        }
    }
}
