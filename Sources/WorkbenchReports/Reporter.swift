import Foundation
import WorkbenchCore

/// Something that follows a run through its events: a line per item, a live display, a report
/// file, a trace. The CLI composes several (`ReporterGroup`) and feeds them every event in order.
public protocol Reporter: AnyObject {
    /// The events it needs: `.items` (items and the run) or `.nodes` (every node's state and
    /// progress too, which costs the scheduler a little).
    var detail: RunOptions.EventDetail { get }
    func handle(_ event: RunEvent)
    /// After the last event: write what was gathered (a report, a trace). Throws when it cannot.
    func finish() throws
}

extension Reporter {
    public func finish() throws {}
}
