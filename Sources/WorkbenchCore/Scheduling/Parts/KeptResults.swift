/// Results taken from `RunOptions.resultCache` as instances are made ready. Taking one succeeds
/// the instance, which can make more ready and take more; they are queued and handed on one
/// after another rather than by recursion, so nodes end upstream first.
struct KeptResults {
    /// Where results are kept between runs, and the keys they are filed under (nil without one).
    let cache: ResultCache?
    let keys: ResultKeys?
    private var queue: [(instance: Int, payload: Payload)] = []
    private var next = 0
    private var taking = false

    init(cache: ResultCache?, keys: ResultKeys?) {
        self.cache = cache
        self.keys = keys
    }

    /// Keeps `cache`'s results for `plan`'s nodes, filed under their recipes.
    init(cache: ResultCache?, plan: RunPlan, baseDirectory: String) {
        self.init(cache: cache, keys: cache.map { ResultKeys(plan: plan, baseDirectory: baseDirectory, reach: $0.reach) })
    }

    /// By node: its images are computed into memory before they are kept (`ResultCache.Reach.everyNode`).
    func computesImages(_ plan: RunPlan) -> [Bool] {
        plan.nodes.indices.map { cache?.reach == .everyNode && keys?.keeps($0) == true }
    }

    /// A result an earlier run made for node `n` and `item` from the same recipe.
    func lookup(node n: Int, item: @autoclosure () -> Item) -> Payload? {
        guard let cache, let key = keys?.key(of: n, item: item()) else { return nil }
        return cache.payload(for: key)
    }

    /// Keeps what node `n` made for `item`, for later runs.
    func keep(_ payload: Payload, node n: Int, item: @autoclosure () -> Item) {
        if let cache, let key = keys?.key(of: n, item: item()) { cache.keep(payload, for: key) }
    }

    /// Queues a result. True when the caller is the one to hand them on (`take` until nil).
    mutating func add(_ instance: Int, _ payload: Payload) -> Bool {
        queue.append((instance, payload))
        guard !taking else { return false }
        taking = true
        return true
    }

    /// The next result to hand on; nil ends the round.
    mutating func take() -> (instance: Int, payload: Payload)? {
        guard next < queue.count else {
            queue.removeAll(keepingCapacity: true)
            next = 0
            taking = false
            return nil
        }
        next += 1
        return queue[next - 1]
    }
}
