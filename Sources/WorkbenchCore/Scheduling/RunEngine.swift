import Foundation
import Logging

/// Runs a compiled preset graph over a stream of items; `PresetRun` is its public face.
///
/// All state sits behind one lock. A node instance's count of unfinished inputs reaches zero →
/// it enters its queue's ready heap; a queue hands out `concurrency` permits; CPU workers pick the
/// best ready node across queues (QoS with aging, then depth, then item order) and I/O nodes go to
/// I/O threads, so nothing ever scans for ready work and no thread waits for a permit.
final class RunEngine: @unchecked Sendable {
    // Safe: every `var` of this class and its extensions is read and written only with `lock`
    // held; the `let`s are immutable. For the same reason the vars skip Swift's run-time
    // exclusivity checks (`@exclusivity(unchecked)`), which cost a fifth of the scheduler's time.

    /// The scheduling state of one node instance; kept to plain values so it is cheap to touch.
    struct Instance {
        var state = NodeState.pending
        var remaining = 0
        /// Downstream instances that still need this one's output.
        var waiters = 0
        var attempt = 0
        var version = 0
        var qos = 0
        var cancelRequested = false
        var runningIndex = -1
        var timedOut = false
        var stamp = 0
        var readySince = 0.0
        var waitingForRetry = false
    }

    /// The payloads an instance has received so far.
    struct Payloads {
        var from: [Payload?] = []
        /// Single references, by the edge's `singleIndex`.
        var references: [Payload?] = []
        /// Fan-ins, by parameter name.
        var lists: [String: [Payload]] = [:]

        init(from: Int = 0, references: Int = 0) {
            if from > 0 { self.from = Array(repeating: nil, count: from) }
            if references > 0 { self.references = Array(repeating: nil, count: references) }
        }
    }

    /// A run-scope node's fan-in edges, by input index: items still to contribute, and what they gave.
    struct FanIn {
        var open: [Int]
        var collected: [[(item: Int, payload: Payload)]]
    }

    struct Slot {
        var item: Item?
        /// The item's index, or -1 for a free slot (read often; cheaper than the item).
        var itemIndex = -1
        var unfinished = 0
        var failure: (node: String, message: String)?
        var outputs: [String] = []
        var bytes = 0
        var cancelled = false
        var started: Double?
    }

    struct QueueRuntime {
        var running = 0
        var suspended = false
        var cpuReady = PriorityHeap<ReadyKey>()
        var ioReady = PriorityHeap<ReadyKey>()
        /// Recent seconds per body; starts high so the first bodies go one at a time.
        var averageBody = 1e-3
    }

    /// A body about to run: what was taken under the lock. The stage's inputs and context are
    /// built from it outside the lock (see `execute`).
    /// A class, so a job moves between the lists of a batch as one reference.
    final class Job: @unchecked Sendable {
        // Safe: built under the lock, immutable, then handed to exactly one thread.
        let instance: Int
        let node: Int
        let stamp: Int
        let attempt: Int
        let item: Item
        let held: Payloads
        let token: CancellationToken

        init(instance: Int, node: Int, stamp: Int, attempt: Int, item: Item, held: Payloads, token: CancellationToken) {
            self.instance = instance
            self.node = node
            self.stamp = stamp
            self.attempt = attempt
            self.item = item
            self.held = held
            self.token = token
        }
    }

    let plan: RunPlan
    let output: OutputRoot
    let logger: Logger
    let baseDirectory: String
    let options: RunOptions
    let nodeCount: Int
    let window: Int
    let workerCount: Int
    let ioPermits: Int
    let total: Int?
    let lock = ConditionLock()
    /// Monotonic nanoseconds at the start; `now` is measured from it.
    let startNanos: UInt64
    let events: AsyncStream<RunEvent>.Continuation?
    /// For item node u: the run-scope fan-in nodes and input indices it feeds.
    let fanInTargets: [[(node: Int, edge: Int)]]
    /// Whether node state changes are reported (read on every transition).
    let nodeEvents: Bool
    let shared: StageContext.Shared
    let itemEvents: Bool
    let agingInterval: Double

    @exclusivity(unchecked) var instances: [Instance]
    @exclusivity(unchecked) var payloads: [Payloads]
    @exclusivity(unchecked) var tokens: [CancellationToken?]
    /// By node index (run-scope fan-in nodes only).
    @exclusivity(unchecked) var fanIns: [FanIn?]
    /// Tokens of bodies that ended without cancellation, for reuse.
    @exclusivity(unchecked) var spareTokens: [CancellationToken] = []
    @exclusivity(unchecked) var slots: [Slot]
    @exclusivity(unchecked) var freeSlots: [Int]
    @exclusivity(unchecked) var iterator: ItemSource.Cursor
    /// Reused by `instantiate` so setting up an item allocates nothing.
    @exclusivity(unchecked) var readyScratch: [Int] = []
    @exclusivity(unchecked) var batchScratch: [Int] = []
    @exclusivity(unchecked) var exhausted = false
    @exclusivity(unchecked) var filling = false
    @exclusivity(unchecked) var liveItems = 0
    @exclusivity(unchecked) var itemsStarted = 0
    @exclusivity(unchecked) var queues: [QueueRuntime]
    @exclusivity(unchecked) var runSuspended = false
    @exclusivity(unchecked) var stopping = false
    @exclusivity(unchecked) var ending = RunSummary.Ending.completed
    @exclusivity(unchecked) var finished = false
    @exclusivity(unchecked) var idleWorkers = 0
    @exclusivity(unchecked) var sequence = 0
    @exclusivity(unchecked) var stamps = 0
    /// Instances whose body is handed out; each knows its position here (`Instance.runningIndex`).
    @exclusivity(unchecked) var running: [Int] = []
    @exclusivity(unchecked) var runOutputs: [Payload?]
    @exclusivity(unchecked) var counts = (succeeded: 0, failed: 0, cancelled: 0, nodesRun: 0, bytes: 0)
    @exclusivity(unchecked) var pendingIO: [Job] = []
    @exclusivity(unchecked) var summary: RunSummary?
    @exclusivity(unchecked) var waiters: [CheckedContinuation<RunSummary, Never>] = []
    @exclusivity(unchecked) var leftovers: (slots: [Slot], instances: [Instance])?

    init(plan: RunPlan, items: ItemSource, output: OutputRoot, baseDirectory: String, options: RunOptions,
         logger: Logger, events: AsyncStream<RunEvent>.Continuation?) {
        self.plan = plan
        self.output = output
        self.logger = logger
        self.baseDirectory = baseDirectory
        self.options = options
        self.events = events
        nodeCount = plan.nodes.count
        window = options.window
        workerCount = max(1, options.workers ?? ProcessInfo.processInfo.activeProcessorCount)
        total = items.count
        var io = 0
        for (q, limit) in plan.limits.enumerated() where plan.nodes.contains(where: { $0.queue == q && $0.isIO }) {
            io += limit
        }
        ioPermits = max(1, io)
        var targets = [[(node: Int, edge: Int)]](repeating: [], count: plan.nodes.count)
        for (d, node) in plan.nodes.enumerated() {
            for (e, edge) in node.inputs.enumerated() where edge.isFanIn { targets[edge.node].append((d, e)) }
        }
        fanInTargets = targets
        instances = Array(repeating: Instance(), count: (window + 1) * plan.nodes.count)
        payloads = Array(repeating: Payloads(), count: (window + 1) * plan.nodes.count)
        tokens = Array(repeating: nil, count: (window + 1) * plan.nodes.count)
        fanIns = Array(repeating: nil, count: plan.nodes.count)
        nodeEvents = options.eventDetail == .nodes && events != nil
        shared = StageContext.Shared(output: output, logger: logger, baseDirectory: baseDirectory)
        itemEvents = options.eventDetail != .none && events != nil
        agingInterval = options.agingInterval
        slots = Array(repeating: Slot(), count: window)
        freeSlots = Array((0..<window).reversed())
        iterator = items.makeCursor()
        queues = Array(repeating: QueueRuntime(), count: plan.queues.count)
        runOutputs = Array(repeating: nil, count: plan.nodes.count)
        runSuspended = options.startSuspended
        startNanos = Self.monotonicNanos()
    }

    static func monotonicNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Seconds since the run started.
    var now: Double { Double(Self.monotonicNanos() - startNanos) * 1e-9 }

    // MARK: - Addressing

    /// The run-scope block comes after the item slots.
    func runInstance(_ node: Int) -> Int { window * nodeCount + node }
    func node(of instance: Int) -> Int { instance % nodeCount }
    func slot(of instance: Int) -> Int? {
        let s = instance / nodeCount
        return s < window ? s : nil
    }
    func item(of instance: Int) -> Item { slot(of: instance).flatMap { slots[$0].item } ?? .run }
    func itemIndex(of instance: Int) -> Int {
        let s = instance / nodeCount
        return s < window ? slots[s].itemIndex : -1
    }

    // MARK: - Start and workers

    func start() {
        lock.lock()
        if options.eventDetail != .none { events?.yield(.runStarted(items: total, nodesPerItem: plan.itemNodes.count)) }
        for n in plan.runNodes { setUpRunNode(n) }
        fillWindow()
        for n in plan.runNodes where instances[runInstance(n)].state == .pending && instances[runInstance(n)].remaining == 0 {
            makeReady(runInstance(n))
        }
        checkDone()
        unlockAndFlush()
        for index in 0..<workerCount {
            let thread = Thread { [self] in workerLoop() }
            thread.name = "workbench.cpu.\(index)"
            thread.start()
        }
    }

    /// A CPU worker: takes a batch of ready nodes from the best queue under one permit, runs them
    /// one after another outside the lock, and ends them all under one lock acquisition. Batches
    /// are as long as about `batchTarget` seconds of that queue's recent bodies (at most 16), so
    /// tiny bodies share the lock's cost and long ones still go one at a time.
    private func workerLoop() {
        var results: [Result<Payload, any Error>] = []
        var jobs: [Job] = []
        lock.lock()
        while !finished {
            if let (q, ids) = pickCPU() {
                queues[q].running += 1
                jobs.removeAll(keepingCapacity: true)
                for id in ids { jobs.append(beginBody(id, takesPermit: false)) }
                lock.unlock()
                let started = Self.monotonicNanos()
                results.removeAll(keepingCapacity: true)
                for index in jobs.indices { results.append(execute(jobs[index])) }
                let perBody = Double(Self.monotonicNanos() - started) * 1e-9 / Double(jobs.count)
                lock.lock()
                queues[q].running -= 1
                queues[q].averageBody = queues[q].averageBody * 0.75 + perBody * 0.25
                for index in jobs.indices { endBody(jobs[index], results[index], releasesPermit: false) }
                if !pendingIO.isEmpty || summary != nil {
                    unlockAndFlush()
                    lock.lock()
                }
                continue
            }
            idleWorkers += 1
            lock.wait()
            idleWorkers -= 1
        }
        lock.unlock()
    }

    func execute(_ job: Job) -> Result<Payload, any Error> {
        // Cancelled between being picked and getting here: the body never starts.
        if job.token.isCancelled { return .failure(WorkbenchError.cancelled) }
        let node = plan.nodes[job.node]
        let inputs = StageInputs(fromSlots: job.held.from, referenceNames: node.singleReferenceNames,
                                 referenceSlots: job.held.references, lists: job.held.lists)
        let context = StageContext(item: job.item, nodeID: node.id, cancellation: job.token, attempt: job.attempt,
                                   timeout: node.timeout, shared: shared)
        do {
            return .success(try node.stage.run(inputs, context: context))
        } catch {
            return .failure(error)
        }
    }

    /// Releases the lock, then starts the I/O bodies and delivers the result decided under it.
    func unlockAndFlush() {
        let jobs = pendingIO
        pendingIO = []
        let done = finished ? summary : nil
        let continuations = done != nil ? waiters : []
        if done != nil { waiters = [] }
        let rest = done != nil ? leftovers : nil
        if done != nil { leftovers = nil }
        lock.unlock()
        for job in jobs {
            IOThreads.shared.run(limit: ioPermits) { [self] in
                let result = execute(job)
                lock.lock()
                endBody(job, result)
                unlockAndFlush()
            }
        }
        if let done {
            if let rest { reportLeftovers(rest) }
            events?.yield(.runFinished(done))
            events?.finish()
            for continuation in continuations { continuation.resume(returning: done) }
        }
    }

    /// The best ready CPU node across queues with a free permit, taken off its heap.
    private func pickCPU() -> (queue: Int, instances: [Int])? {
        guard !runSuspended, !stopping else { return nil }
        var best: (queue: Int, qos: Int, depth: Int, item: Int)?
        let time = agingInterval > 0 ? now : 0
        for q in queues.indices where !queues[q].suspended && queues[q].running < plan.limits[q] {
            guard let head = peekCurrent(&queues[q].cpuReady) else { continue }
            var qos = head.qos
            if agingInterval > 0 {
                qos += min(3, Int((time - instances[head.instance].readySince) / agingInterval))
            }
            if let b = best, (b.qos, b.depth, -b.item) >= (qos, head.depth, -head.item) { continue }
            best = (q, qos, head.depth, head.item)
        }
        guard let q = best?.queue else { return nil }
        let size = max(1, min(Self.maxBatch, Int(Self.batchTarget / max(queues[q].averageBody, 1e-9))))
        var batch = batchScratch
        batch.removeAll(keepingCapacity: true)
        defer { batchScratch = batch }
        var batchQoS: Int?
        // A batch keeps to one QoS class, so it never carries lower work ahead of another queue's.
        while batch.count < size, let head = peekCurrent(&queues[q].cpuReady), head.qos == (batchQoS ?? head.qos) {
            _ = queues[q].cpuReady.pop()
            // Claimed at once, so a second entry for the same instance is stale from here on.
            instances[head.instance].state = .running
            batch.append(head.instance)
            batchQoS = head.qos
        }
        return (q, batch)
    }

    /// About how long one batch of bodies may take (seconds); measured best between 20 and 50 µs.
    static let batchTarget = 40e-6
    static let maxBatch = 32

    /// Drops stale entries (re-bucketed or no longer ready) and returns the current head.
    func peekCurrent(_ heap: inout PriorityHeap<ReadyKey>) -> ReadyKey? {
        while let head = heap.peek {
            let instance = instances[head.instance]
            if instance.state == .ready && instance.version == head.version { return head }
            _ = heap.pop()
        }
        return nil
    }

    /// Starts I/O bodies while their queues have permits.
    func startIO() {
        guard !runSuspended, !stopping else { return }
        for q in queues.indices where !queues[q].suspended {
            while queues[q].running < plan.limits[q], let head = peekCurrent(&queues[q].ioReady) {
                _ = queues[q].ioReady.pop()
                pendingIO.append(beginBody(head.instance))
            }
        }
    }

    func beginBody(_ id: Int, takesPermit: Bool = true) -> Job {
        let n = node(of: id)
        let node = plan.nodes[n]
        if takesPermit { queues[node.queue].running += 1 }
        instances[id].runningIndex = running.count
        running.append(id)
        stamps += 1
        instances[id].state = .running
        instances[id].attempt += 1
        instances[id].stamp = stamps
        let token = spareTokens.popLast() ?? CancellationToken()
        tokens[id] = token
        if itemEvents, let s = slot(of: id), slots[s].started == nil { slots[s].started = now }
        emitNode(id, .running)
        if let timeout = node.timeout {
            let stamp = stamps
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
                self?.timeoutFired(id, stamp: stamp)
            }
        }
        return Job(instance: id, node: n, stamp: stamps, attempt: instances[id].attempt, item: item(of: id),
                   held: payloads[id], token: token)
    }

    @inline(__always)
    func emitNode(_ id: Int, _ state: NodeState, message: @autoclosure () -> String? = nil) {
        if nodeEvents { reportNode(id, state, message: message()) }
    }

    private func reportNode(_ id: Int, _ state: NodeState, message: String?) {
        guard let events else { return }
        let node = plan.nodes[node(of: id)]
        events.yield(.node(NodeEvent(item: item(of: id), node: node.spec.id, queue: node.spec.queue, state: state,
                                     time: now, attempt: max(1, instances[id].attempt), message: message)))
    }

    /// Blocks the calling thread until the run has ended.
    func waitForEnd() -> RunSummary {
        lock.lock()
        while !finished { lock.wait() }
        let result = summary
        lock.unlock()
        // `finished` is only set together with `summary`.
        return result ?? RunSummary(items: 0, succeeded: 0, failed: 0, cancelled: 0, nodesRun: 0, bytesWritten: 0,
                                    duration: 0, ending: ending)
    }

    /// Waits for the end of the run.
    func result() async -> RunSummary {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let summary, finished, leftovers == nil {
                lock.unlock()
                continuation.resume(returning: summary)
                return
            }
            waiters.append(continuation)
            lock.unlock()
        }
    }
}
