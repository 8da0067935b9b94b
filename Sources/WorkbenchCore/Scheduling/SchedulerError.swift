/// Why the scheduler ended a node.
public enum SchedulerError: Error, Sendable, CustomStringConvertible {
    /// The node ran longer than its `timeout`.
    case timedOut(node: String, seconds: Double)
    /// The item's files changed between the reading node's look and the scheduler's, so the
    /// input it left unread is needed after all.
    case inputChanged(node: String)
    /// The system refused a thread the run needs (its stack is address space).
    case threadRefused(purpose: String, reason: String)

    public var description: String {
        switch self {
        case .threadRefused(let purpose, let reason):
            return "Cannot start a thread (\(purpose)): \(reason); \(ProcessLimits.advice)."
        case .inputChanged(let node):
            return "\"\(node)\": the item's files changed while the run checked whether they were up to date; run again."
        case .timedOut(let node, let seconds):
            let text = Int(exactly: seconds).map(String.init) ?? String(seconds)
            return "\"\(node)\" timed out after \(text) s; raise its \"timeout\" if it needs longer."
        }
    }
}
