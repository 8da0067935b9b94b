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
    // held; the `let`s are immutable.

    struct Instance {
        var state = NodeState.pending
        var remaining = 0
        /// Downstream instances that still need this one's output.
        var waiters = 0
        var attempt = 0
        var version = 0
        var qos = 0
        var from: [Payload?] = []
        var references: [String: [Payload]] = [:]
        /// Per fan-in edge (by input index): items whose contribution is still outstanding.
        var fanInOpen: [Int] = []
        var fanInCollected: [String: [(item: Int, payload: Payload)]] = [:]
        var token: CancellationToken?
        var cancelRequested = false
        var timedOut = false
        var stamp = 0
        var readySince = 0.0
        var waitingForRetry = false
    }

    struct Slot {
        var item: Item?
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
    }

    /// A body about to run, with everything it needs outside the lock.
    struct Job: @unchecked Sendable {
        // Safe: built under the lock and then handed to exactly one thread.
        let instance: Int
        let stamp: Int
        let stage: any Stage
        let inputs: StageInputs
        let context: StageContext
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
    let clock = ContinuousClock()
    let startTime: ContinuousClock.Instant
    let events: AsyncStream<RunEvent>.Continuation?
    /// For item node u: the run-scope fan-in nodes and input indices it feeds.
    let fanInTargets: [[(node: Int, edge: Int)]]

    var instances: [Instance]
    var slots: [Slot]
    var freeSlots: [Int]
    var iterator: AnyIterator<Item>
    var exhausted = false
    var filling = false
    var liveItems = 0
    var itemsStarted = 0
    var queues: [QueueRuntime]
    var runSuspended = false
    var stopping = false
    var ending = RunSummary.Ending.completed
    var finished = false
    var idleWorkers = 0
    var sequence = 0
    var stamps = 0
    var running = Set<Int>()
    var runOutputs: [Payload?]
    var counts = (succeeded: 0, failed: 0, cancelled: 0, nodesRun: 0, bytes: 0)
    var pendingIO: [Job] = []
    var summary: RunSummary?
    var waiters: [CheckedContinuation<RunSummary, Never>] = []
    var leftovers: (slots: [Slot], instances: [Instance])?

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
        slots = Array(repeating: Slot(), count: window)
        freeSlots = Array((0..<window).reversed())
        iterator = items.makeIterator()
        queues = Array(repeating: QueueRuntime(), count: plan.queues.count)
        runOutputs = Array(repeating: nil, count: plan.nodes.count)
        runSuspended = options.startSuspended
        startTime = clock.now
    }

    var now: Double {
        let d = clock.now - startTime
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    // MARK: - Addressing

    /// The run-scope block comes after the item slots.
    func runInstance(_ node: Int) -> Int { window * nodeCount + node }
    func node(of instance: Int) -> Int { instance % nodeCount }
    func slot(of instance: Int) -> Int? {
        let s = instance / nodeCount
        return s < window ? s : nil
    }
    func item(of instance: Int) -> Item { slot(of: instance).flatMap { slots[$0].item } ?? .run }

    // MARK: - Start and workers

    func start() {
        lock.lock()
        events?.yield(.runStarted(items: total, nodesPerItem: plan.itemNodes.count))
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

    private func workerLoop() {
        lock.lock()
        while !finished {
            if let id = pickCPU() {
                let job = beginBody(id)
                lock.unlock()
                let result = execute(job)
                lock.lock()
                endBody(job, result)
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
        if job.context.cancellation.isCancelled { return .failure(WorkbenchError.cancelled) }
        do {
            return .success(try job.stage.run(job.inputs, context: job.context))
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
    private func pickCPU() -> Int? {
        guard !runSuspended, !stopping else { return nil }
        var best: (queue: Int, qos: Int, depth: Int, item: Int)?
        let time = options.agingInterval > 0 ? now : 0
        for q in queues.indices where !queues[q].suspended && queues[q].running < plan.limits[q] {
            guard let head = peekCurrent(&queues[q].cpuReady) else { continue }
            var qos = head.qos
            if options.agingInterval > 0 {
                qos += min(3, Int((time - instances[head.instance].readySince) / options.agingInterval))
            }
            if let b = best, (b.qos, b.depth, -b.item) >= (qos, head.depth, -head.item) { continue }
            best = (q, qos, head.depth, head.item)
        }
        guard let q = best?.queue else { return nil }
        return queues[q].cpuReady.pop()?.instance
    }

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

    func beginBody(_ id: Int) -> Job {
        let n = node(of: id)
        let node = plan.nodes[n]
        queues[node.queue].running += 1
        running.insert(id)
        stamps += 1
        instances[id].state = .running
        instances[id].attempt += 1
        instances[id].stamp = stamps
        let token = CancellationToken()
        instances[id].token = token
        if let s = slot(of: id), slots[s].started == nil { slots[s].started = now }
        emitNode(id, .running)
        if let timeout = node.spec.timeout {
            let stamp = stamps
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
                self?.timeoutFired(id, stamp: stamp)
            }
        }
        let instance = instances[id]
        let inputs = StageInputs(from: instance.from.compactMap { $0 }, references: instance.references)
        let context = StageContext(item: item(of: id), nodeID: node.spec.id, cancellation: token, output: output,
                                   logger: logger, baseDirectory: baseDirectory, attempt: instance.attempt)
        return Job(instance: id, stamp: stamps, stage: node.spec.stage, inputs: inputs, context: context)
    }

    func emitNode(_ id: Int, _ state: NodeState, message: String? = nil) {
        guard let events, options.eventDetail == .nodes else { return }
        let node = plan.nodes[node(of: id)]
        events.yield(.node(NodeEvent(item: item(of: id), node: node.spec.id, queue: node.spec.queue, state: state,
                                     time: now, attempt: max(1, instances[id].attempt), message: message)))
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
