import Synchronization

/// What run-scope nodes made (a watermark's logo read and decoded, once), kept across the runs
/// of one preset so that a later run takes it instead of running those nodes again: the live
/// workbench runs every item as a run of its own and gives them one cache per preset version.
/// Keyed by node id: make a new cache when the preset changes.
public final class RunScopeCache: Sendable {
    private let payloads = Mutex<[String: Payload]>([:])

    public init() {}

    func payload(of node: String) -> Payload? { payloads.withLock { $0[node] } }

    func keep(_ payload: Payload, of node: String) {
        // A written file is the run's own result, not something to hand to another run.
        if case .file = payload { return }
        payloads.withLock { $0[node] = payload }
    }
}
