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

    /// One item's output collected for a fan-in; kept with the item's index so the list can be
    /// put in item order.
    struct FanInEntry {
        let item: Int
        let payload: Payload
    }

    /// The payloads an instance has received so far.
    struct Payloads {
        var from: [Payload?] = []
        /// Single references, by the edge's `singleIndex`.
        var references: [Payload?] = []
        /// Fan-ins, by parameter name.
        var lists: [String: [Payload]] = [:]

        var isEmpty: Bool { from.isEmpty && references.isEmpty && lists.isEmpty }

        init(from: Int = 0, references: Int = 0) {
            if from > 0 { self.from = Array(repeating: nil, count: from) }
            if references > 0 { self.references = Array(repeating: nil, count: references) }
        }
    }


    struct Slot {
        var item: Item?
        /// The item's index, or -1 for a free slot (read often; cheaper than the item).
        var itemIndex = -1
        var unfinished = 0
        var failure: (node: String, message: String)?
        var files: [OutputFile] = []
        /// Files an incremental run left as they were.
        var upToDate: [OutputFile] = []
        /// The input's identity, once the node reading it has run (incremental runs).
        var identity: InputIdentity?
        var bytes = 0
        var cancelled = false
        var started: Double?
    }

    struct QueueRuntime {
        var running = 0
        var suspended = false
        var cpuReady = ReadyQueue()
        var ioReady = ReadyQueue()
        /// Recent seconds per body; starts high so the first bodies go one at a time.
        var averageBody = 1e-3
    }

    /// A body about to run: what was taken under the lock. The stage's inputs and context are
    /// built from it outside the lock (see `execute`).
    /// A class, so a job moves between the lists of a batch as one reference.
    final class Job: @unchecked Sendable {
        // Safe: built under the lock, then handed to exactly one thread, which alone sets `span`
        // and `freshness` before handing it back under the lock.
        /// Where and when the body ran (recorded when node events are on).
        var span: NodeSpan?
        /// For the node that read the item's input on an incremental run: which of the item's
        /// files are up to date (`judge`).
        var freshness: ItemFreshness?
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
    /// The recipes of an incremental run (nil: every file is made).
    let recipes: RecipeBook?
    /// Where results are filed in `options.resultCache` (nil without one).
    let resultKeys: ResultKeys?
    /// By node: its images are computed into memory before they are kept (`ResultCache.Reach.everyNode`).
    let computesKeptImages: [Bool]
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
    /// For item node u, `fanInTargets[fanInRanges[u]]`: the run-scope fan-in nodes and input
    /// indices it feeds, and their fan-in slots.
    let fanInTargets: RawTable<(node: Int, edge: Int, slot: Int)>
    let fanInRanges: RawTable<(start: Int, end: Int)>
    /// For item node n, `runInputs[runInputRanges[n]]`: the run-scope nodes it reads.
    let runInputs: RawTable<Int>
    let runInputRanges: RawTable<(start: Int, end: Int)>
    /// `plan.itemNodes` as a raw table.
    let itemNodes: RawTable<Int>
    /// For run node n and input e: its fan-in slot (index into the `fanIn…` arrays), or -1.
    let fanInSlot: [[Int]]
    /// Whether node state changes are reported (read on every transition).
    let nodeEvents: Bool
    let shared: StageContext.Shared
    let itemEvents: Bool
    let agingInterval: Double

    @exclusivity(unchecked) var instances: [Instance]
    @exclusivity(unchecked) var payloads: [Payloads]
    @exclusivity(unchecked) var tokens: [CancellationToken?]
    /// By node index (run-scope fan-in nodes only).
    /// Per fan-in slot (one per run-scope node's fan-in input): items still to contribute, and
    /// the contributing item indices and payloads in arrival order.
    @exclusivity(unchecked) var fanInOpen: [Int]
    @exclusivity(unchecked) var fanInEntries: [[FanInEntry]]
    /// Tokens of bodies that ended without cancellation, for reuse.
    @exclusivity(unchecked) var spareTokens: [CancellationToken] = []
    @exclusivity(unchecked) var slots: [Slot]
    @exclusivity(unchecked) var freeSlots: [Int]
    @exclusivity(unchecked) var iterator: ItemSource.Cursor
    /// For nodes whose references all come from run scope: those payloads, built once for all items.
    @exclusivity(unchecked) var sharedReferences: [[Payload?]?]
    @exclusivity(unchecked) var batchScratch: [Int] = []
    @exclusivity(unchecked) var exhausted = false
    @exclusivity(unchecked) var filling = false
    @exclusivity(unchecked) var liveItems = 0
    @exclusivity(unchecked) var itemsStarted = 0
    @exclusivity(unchecked) var queues: [QueueRuntime]
    @exclusivity(unchecked) var runSuspended = false
    @exclusivity(unchecked) var stopping = false
    @exclusivity(unchecked) var ending = RunSummary.Ending.completed
    @exclusivity(unchecked) var stopReason: String?
    @exclusivity(unchecked) var finished = false
    @exclusivity(unchecked) var idleWorkers = 0
    @exclusivity(unchecked) var sequence = 0
    /// `now` as last read under the lock (once per batch): nodes made ready record it as the
    /// start of their wait, which is all aging needs.
    @exclusivity(unchecked) var recentNow = 0.0
    @exclusivity(unchecked) var stamps = 0
    /// The span of the body `endBody` is ending, for the node event that ends it (under the lock).
    @exclusivity(unchecked) var endingSpan: (instance: Int, span: NodeSpan)?
    /// Instances whose body is handed out; each knows its position here (`Instance.runningIndex`).
    @exclusivity(unchecked) var running: [Int] = []
    @exclusivity(unchecked) var runOutputs: [Payload?]
    @exclusivity(unchecked) var counts = (succeeded: 0, failed: 0, cancelled: 0, upToDate: 0, nodesRun: 0, bytes: 0)
    @exclusivity(unchecked) var pendingIO: [Job] = []
    @exclusivity(unchecked) var summary: RunSummary?
    /// Run-scope nodes by plan index: the first failure that ended each (its own or upstream's),
    /// and the file each `write` put in place.
    @exclusivity(unchecked) var runFailures: [Int: (node: String, message: String)] = [:]
    @exclusivity(unchecked) var runFiles: [Int: (path: String, bytes: Int)] = [:]
    @exclusivity(unchecked) var waiters: [CheckedContinuation<RunSummary, Never>] = []
    @exclusivity(unchecked) var leftovers: (slots: [Slot], instances: [Instance])?
    /// Instances taking a result from `options.resultCache`, in the order they were made ready.
    @exclusivity(unchecked) var keptResults: [(instance: Int, payload: Payload)] = []
    @exclusivity(unchecked) var takingKept = false

    init(plan: RunPlan, items: ItemSource, output: OutputRoot, baseDirectory: String, options: RunOptions,
         logger: Logger, events: AsyncStream<RunEvent>.Continuation?, recipes: RecipeBook? = nil) {
        self.plan = plan
        self.recipes = recipes
        let resultKeys = options.resultCache.map { ResultKeys(plan: plan, baseDirectory: baseDirectory, reach: $0.reach) }
        self.resultKeys = resultKeys
        computesKeptImages = plan.nodes.indices.map { options.resultCache?.reach == .everyNode && resultKeys?.keeps($0) == true }
        self.output = output
        self.logger = logger
        self.baseDirectory = baseDirectory
        self.options = options
        self.events = events
        nodeCount = plan.nodes.count
        workerCount = max(1, options.workers ?? ProcessInfo.processInfo.activeProcessorCount)
        total = items.count
        var io = 0
        for (q, limit) in plan.limits.enumerated() where plan.nodes.contains(where: { $0.queue == q && $0.isIO }) {
            io += limit
        }
        ioPermits = max(1, io)
        window = options.window ?? max(8, 2 * (workerCount + ioPermits))
        var targets = [[(node: Int, edge: Int, slot: Int)]](repeating: [], count: plan.nodes.count)
        var slotsByInput = plan.nodes.map { [Int](repeating: -1, count: $0.inputs.count) }
        var fanInCount = 0
        for (d, node) in plan.nodes.enumerated() {
            for (e, edge) in node.inputs.enumerated() where edge.isFanIn {
                targets[edge.node].append((d, e, fanInCount))
                slotsByInput[d][e] = fanInCount
                fanInCount += 1
            }
        }
        (fanInTargets, fanInRanges) = Self.flatten(targets)
        (runInputs, runInputRanges) = Self.flatten(plan.nodes.map { node in
            node.inputs.filter(\.fromRunScope).map(\.node)
        })
        itemNodes = RawTable(plan.itemNodes)
        fanInSlot = slotsByInput
        fanInOpen = Array(repeating: 0, count: fanInCount)
        fanInEntries = Array(repeating: [], count: fanInCount)
        instances = Array(repeating: Instance(), count: (window + 1) * plan.nodes.count)
        payloads = Array(repeating: Payloads(), count: (window + 1) * plan.nodes.count)
        tokens = Array(repeating: nil, count: (window + 1) * plan.nodes.count)
        sharedReferences = Array(repeating: nil, count: plan.nodes.count)
        nodeEvents = options.eventDetail == .nodes && events != nil
        var progress: (@Sendable (ProgressEvent) -> Void)?
        if options.eventDetail == .nodes, let events {
            progress = { event in events.yield(.progress(event)) }
        }
        shared = StageContext.Shared(output: output, logger: logger, baseDirectory: baseDirectory, progress: progress,
                                     inputHistory: recipes, runFileSuffix: options.runFileSuffix)
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

    deinit {
        fanInTargets.free()
        fanInRanges.free()
        runInputs.free()
        runInputRanges.free()
        itemNodes.free()
    }

    /// Lists per node as one table plus each node's range in it.
    private static func flatten<T: BitwiseCopyable>(_ lists: [[T]]) -> (RawTable<T>, RawTable<(start: Int, end: Int)>) {
        var ranges: [(start: Int, end: Int)] = []
        var start = 0
        for list in lists {
            ranges.append((start, start + list.count))
            start += list.count
        }
        return (RawTable(lists.flatMap { $0 }), RawTable(ranges))
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

    @inline(__always)
    func emitNode(_ id: Int, _ state: NodeState, message: @autoclosure () -> String? = nil) {
        if nodeEvents { reportNode(id, state, message: message()) }
    }

    private func reportNode(_ id: Int, _ state: NodeState, message: String?) {
        guard let events else { return }
        let node = plan.nodes[node(of: id)]
        var span: NodeSpan?
        if let ending = endingSpan, ending.instance == id, state != .running, state != .ready {
            span = ending.span
            endingSpan = nil
        }
        events.yield(.node(NodeEvent(item: item(of: id), node: node.spec.id, queue: node.spec.queue, state: state,
                                     time: now, attempt: max(1, instances[id].attempt), message: message, span: span)))
    }

    /// Seconds since the start for a monotonic clock reading.
    func seconds(_ nanos: UInt64) -> Double { Double(nanos &- startNanos) * 1e-9 }

    /// Blocks the calling thread until the run has ended.
    func waitForEnd() -> RunSummary {
        lock.lock()
        while !finished { lock.waitForEnd() }
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
