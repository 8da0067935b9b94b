/// How a run is scheduled, beyond what the preset says.
public struct RunOptions: Sendable {
    /// Which events the run's event stream carries.
    public enum EventDetail: Sendable {
        /// Only `runFinished` (for callers who just await the result).
        case none
        /// Run start, item ends and run end.
        case items
        /// Also every node state change (ready, running, succeeded, …).
        case nodes
    }

    /// Threads for CPU stages; nil means one per core.
    public var workers: Int?
    /// At most this many items are instantiated at once (memory is proportional to it, not to
    /// the length of the input list). Nil: two per worker and I/O permit (at least 8), which
    /// keeps every queue busy while reads and downloads run only a little ahead of the work.
    public var window: Int?
    /// Stop the run at the first failed item.
    public var failFast: Bool
    public var eventDetail: EventDetail
    /// A ready node's priority rises one QoS class per this many seconds of waiting, so lower
    /// classes are never starved.
    public var agingInterval: Double
    /// Cancelling this token cancels the run (signals use it).
    public var cancellation: CancellationToken
    /// Start with the run suspended (to set priorities or suspend queues first); `resume()` starts it.
    public var startSuspended: Bool
    /// Inserted before the extension of every file a run-scope node writes (`sheet.jpg` →
    /// `sheet.shard-0-of-4.jpg`), so shards of one run write sheets of their own.
    public var runFileSuffix: String?
    /// Results kept from earlier runs: a node whose recipe has one takes it instead of running,
    /// and the run keeps what it makes there (see `ResultCache`).
    public var resultCache: ResultCache?
    /// What the caller hands to the stages (a configured S3 client), read through
    /// `StageContext.service(_:)`.
    public var services = StageServices()
    /// A shared set of CPU workers to run on (several runs at once, by QoS); nil: the run
    /// starts threads of its own.
    public var pool: WorkerPool?

    public init(workers: Int? = nil, window: Int? = nil, failFast: Bool = false, eventDetail: EventDetail = .items,
                agingInterval: Double = 0.25, cancellation: CancellationToken = CancellationToken(),
                startSuspended: Bool = false) {
        self.workers = workers
        self.window = window.map { max(1, $0) }
        self.failFast = failFast
        self.eventDetail = eventDetail
        self.agingInterval = agingInterval
        self.cancellation = cancellation
        self.startSuspended = startSuspended
    }
}
