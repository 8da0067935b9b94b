/// The bodies handed out and not yet ended: which instances, their cancellation tokens, and a
/// stamp per handing-out so a late timer or retry for an earlier attempt is recognised.
struct BodiesInFlight {
    /// The instances running, in no order; each knows its place (`position`), so ending one is O(1).
    private(set) var running: [Int] = []
    private var position: [Int]
    private var tokens: [CancellationToken?]
    /// Tokens of bodies that ended without cancellation, for reuse.
    private var spare: [CancellationToken] = []
    /// Handings-out so far; the latest is the current body's stamp.
    private(set) var stamps = 0
    /// I/O bodies begun under the lock, started once it is released (`RunScheduler.unlockAndFlush`).
    var pendingIO: [RunScheduler.Job] = []
    /// The span of the body being ended, for the node event that ends it.
    var endingSpan: (instance: Int, span: NodeSpan)?

    init(instances: Int) {
        position = Array(repeating: -1, count: instances)
        tokens = Array(repeating: nil, count: instances)
    }

    var isEmpty: Bool { running.isEmpty }

    /// Hands out instance `id`'s body: its token and stamp.
    mutating func begin(_ id: Int) -> (token: CancellationToken, stamp: Int) {
        position[id] = running.count
        running.append(id)
        stamps += 1
        let token = spare.popLast() ?? CancellationToken()
        tokens[id] = token
        return (token, stamps)
    }

    /// Instance `id`'s body returned. With `recyclesToken` false (a stop) its token is not reused.
    mutating func end(_ id: Int, recyclesToken: Bool = true) {
        let p = position[id]
        if p >= 0 && p < running.count && running[p] == id {
            let last = running.removeLast()
            if p < running.count {
                running[p] = last
                position[last] = p
            }
        }
        position[id] = -1
        guard recyclesToken, let token = tokens[id] else { return }
        tokens[id] = nil
        if token.isReusable { spare.append(token) }
    }

    /// The span of instance `id`'s body when it is the one being ended and `state` ends it.
    mutating func takeSpan(of id: Int, ending state: NodeState) -> NodeSpan? {
        guard let ending = endingSpan, ending.instance == id, state != .running, state != .ready else { return nil }
        endingSpan = nil
        return ending.span
    }

    /// Tells instance `id`'s body to stop, if it runs.
    func cancel(_ id: Int) { tokens[id]?.cancel() }

    /// Tells every body to stop (bodies handed out but not yet begun see it and do not start).
    func cancelAll() { for id in running { tokens[id]?.cancel() } }
}
