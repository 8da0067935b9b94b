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
