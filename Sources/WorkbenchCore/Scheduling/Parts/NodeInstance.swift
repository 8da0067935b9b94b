/// The scheduling state of one node for one item (or for the run): plain values, so the scheduler
/// touches many of them cheaply under its lock.
struct NodeInstance {
    var state = NodeState.pending
    /// Inputs not yet delivered; the instance is made ready when this reaches zero.
    var remaining = 0
    /// Downstream instances that still need this one's output.
    var waiters = 0
    var attempt = 0
    /// Matches the `ReadyKey` of its current heap entry; an entry with another version is stale.
    var version = 0
    var qos = 0
    var cancelRequested = false
    var timedOut = false
    /// Which handing-out of the body a timer or retry belongs to (`BodiesInFlight.stamps`).
    var stamp = 0
    /// When it was made ready (seconds since the start), for ageing.
    var readySince = 0.0
    var waitingForRetry = false

    init() {}

    /// Filed as ready under `version`, waiting since `time`.
    mutating func becomeReady(version: Int, at time: Double) {
        state = .ready
        self.version = version
        readySince = time
        waitingForRetry = false
    }

    /// Its body handed out under `stamp`.
    mutating func begin(stamp: Int) {
        state = .running
        attempt += 1
        self.stamp = stamp
    }

    /// A terminal state (or back to pending for a retry).
    mutating func end(as state: NodeState, waitingForRetry: Bool = false) {
        self.state = state
        self.waitingForRetry = waitingForRetry
    }

    init(qos: Int, remaining: Int, waiters: Int) {
        self.qos = qos
        self.remaining = remaining
        self.waiters = waiters
    }
}
