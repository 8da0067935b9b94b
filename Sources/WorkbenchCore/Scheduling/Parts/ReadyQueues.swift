/// Every queue's ready nodes and the permits it hands out.
///
/// One order throughout, `ReadyKey`'s: higher QoS, then earlier items, then nodes further down
/// the chain. Inside a queue the heap keeps it; across queues a CPU worker compares the heads the
/// same way, with the QoS of a head that has waited `agingInterval` seconds raised by one per
/// interval (up to three), so no queue starves. I/O nodes go to I/O threads as soon as their
/// queue has a permit; CPU nodes wait for a worker to pick them.
struct ReadyQueues {
    /// One queue's share of the run.
    struct Queue {
        /// Permits handed out (bodies or batches running).
        var running = 0
        var suspended = false
        var cpu = ReadyQueue()
        var io = ReadyQueue()
        /// Recent seconds per body; starts high so the first bodies go one at a time.
        var averageBody = 1e-3
    }

    private(set) var queues: [Queue]
    /// Permits per queue (its `concurrency`).
    let limits: [Int]
    let agingInterval: Double
    /// The whole run suspended (`PresetRun.suspend()`).
    var suspended = false
    /// The run's clock as last read under the lock (once per batch): nodes made ready record it
    /// as the start of their wait, which is all ageing needs.
    var recentNow = 0.0
    /// Versions come from one counter, so an entry left behind by a slot's previous item can
    /// never pass for the current one.
    private var versions = 0
    private var batchScratch: [Int] = []

    /// About how long one batch of bodies may take (seconds); measured best between 20 and 50 µs.
    static let batchTarget = 40e-6
    static let maxBatch = 32

    init(limits: [Int], agingInterval: Double, suspended: Bool) {
        queues = Array(repeating: Queue(), count: limits.count)
        self.limits = limits
        self.agingInterval = agingInterval
        self.suspended = suspended
    }

    /// A fresh version for an instance about to be (re)filed.
    mutating func nextVersion() -> Int {
        versions += 1
        return versions
    }

    /// Files a ready instance under `key` in queue `q`.
    mutating func file(_ key: ReadyKey, queue q: Int, io: Bool) {
        if io { queues[q].io.push(key) } else { queues[q].cpu.push(key) }
    }

    /// The best ready CPU work across queues with a free permit: a batch of one queue's heads at
    /// one QoS, about `batchTarget` seconds of its recent bodies. Takes the permit and marks the
    /// instances running.
    mutating func pickCPU(now: Double, instances: inout [NodeInstance]) -> (queue: Int, instances: [Int])? {
        guard !suspended else { return nil }
        var best: (queue: Int, rank: UInt64)?
        for q in queues.indices where !queues[q].suspended && queues[q].running < limits[q] {
            guard let head = Self.current(&queues[q].cpu, instances) else { continue }
            var rank = head.rank
            if agingInterval > 0 {
                let raise = min(3 - head.qos, Int((now - instances[head.instance].readySince) / agingInterval))
                if raise > 0 { rank -= UInt64(raise) << 60 }
            }
            if let b = best, b.rank <= rank { continue }
            best = (q, rank)
        }
        guard let q = best?.queue else { return nil }
        let size = max(1, min(Self.maxBatch, Int(Self.batchTarget / max(queues[q].averageBody, 1e-9))))
        var batch = batchScratch
        batchScratch = []
        batch.removeAll(keepingCapacity: true)
        defer { batchScratch = batch }
        var batchQoS: Int?
        // A batch keeps to one QoS class, so it never carries lower work ahead of another queue's.
        while batch.count < size, let head = Self.current(&queues[q].cpu, instances), head.qos == (batchQoS ?? head.qos) {
            _ = queues[q].cpu.pop()
            // Claimed at once, so a second entry for the same instance is stale from here on.
            instances[head.instance].state = .running
            batch.append(head.instance)
            batchQoS = head.qos
        }
        queues[q].running += 1
        return (q, batch)
    }

    /// The next I/O instance whose queue has a free permit, taking the permit.
    mutating func nextIO(_ instances: borrowing [NodeInstance]) -> Int? {
        guard !suspended else { return nil }
        for q in queues.indices where !queues[q].suspended && queues[q].running < limits[q] {
            if let head = Self.current(&queues[q].io, instances) {
                _ = queues[q].io.pop()
                queues[q].running += 1
                return head.instance
            }
        }
        return nil
    }

    /// A body (or batch) of queue `q` ended; `perBody` seconds feed the batch size.
    mutating func release(_ q: Int, perBody: Double? = nil) {
        queues[q].running -= 1
        if let perBody { queues[q].averageBody = queues[q].averageBody * 0.75 + perBody * 0.25 }
    }

    /// Whether queue `q` has CPU work filed (perhaps stale entries only).
    func hasCPUWork(in q: Int) -> Bool { !queues[q].cpu.isEmpty }

    /// The QoS rank of the most urgent CPU work a worker could take now, or -1 for none: what a
    /// run on a shared `WorkerPool` tells its workers (stale heap entries are dropped on the way).
    mutating func bestCPUQoS(_ instances: borrowing [NodeInstance]) -> Int {
        guard !suspended else { return -1 }
        var best = -1
        for q in queues.indices where !queues[q].suspended && queues[q].running < limits[q] {
            if let head = Self.current(&queues[q].cpu, instances) { best = max(best, head.qos) }
        }
        return best
    }

    /// Suspends or resumes the queues `qs`, or the whole run when nil.
    mutating func setSuspended(_ suspended: Bool, queues qs: [Int]?) {
        guard let qs else { return self.suspended = suspended }
        for q in qs { queues[q].suspended = suspended }
    }

    /// Detaches every heap (a stop) and returns them.
    mutating func dropAll() -> [Queue] {
        let dropped = queues
        for q in queues.indices {
            queues[q].cpu = ReadyQueue()
            queues[q].io = ReadyQueue()
        }
        return dropped
    }

    /// Drops stale entries (re-filed or no longer ready) and returns the current head.
    private static func current(_ heap: inout ReadyQueue, _ instances: borrowing [NodeInstance]) -> ReadyKey? {
        while let head = heap.peek {
            let instance = instances[head.instance]
            if instance.state == .ready && instance.version == head.version { return head }
            _ = heap.pop()
        }
        return nil
    }
}
