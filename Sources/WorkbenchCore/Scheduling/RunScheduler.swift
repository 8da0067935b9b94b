import Foundation
import Logging

/// Runs a compiled preset graph over a stream of items; `PresetRun` is its public face.
///
/// The scheduler coordinates; the state lives in the parts it owns (`Parts/`, listed in
/// docs/architecture.md), each changing its own state through its own methods, all behind one
/// lock. An instance whose inputs have all arrived is filed in its queue; workers pick the best
/// ready work, so nothing ever scans for ready work and no thread waits for a permit.
final class RunScheduler: @unchecked Sendable {
    // Safe: every `var` of this class is read and written only with `lock` held; the `let`s are
    // immutable. For the same reason the vars skip Swift's run-time exclusivity checks
    // (`@exclusivity(unchecked)`), which cost a fifth of the scheduler's time.

    let plan: RunPlan
    let options: RunOptions
    /// The recipes of an incremental run (nil: every file is made).
    let recipes: RecipeBook?
    /// By node: its images are computed into memory before they are kept (`ResultCache.Reach.everyNode`).
    let computesKeptImages: [Bool]
    /// `plan.itemNodes` as a raw table.
    let itemNodes: RawTable<Int>
    let workerCount: Int
    let ioPermits: Int
    let shared: StageContext.Shared
    let lock = ConditionLock()
    let events: RunEvents
    let clock = RunClock()
    /// Its place on the shared workers it is a job of, or nil for threads of its own.
    let seat: PoolSeat?

    @exclusivity(unchecked) var instances: [NodeInstance]
    @exclusivity(unchecked) var payloads: [Payloads]
    @exclusivity(unchecked) var window: ItemWindow
    @exclusivity(unchecked) var ready: ReadyQueues
    @exclusivity(unchecked) var inFlight: BodiesInFlight
    @exclusivity(unchecked) var fanIns: FanIns
    @exclusivity(unchecked) var runScope: RunScope
    @exclusivity(unchecked) var tally = Tally()
    @exclusivity(unchecked) var shortIO: ShortIO
    @exclusivity(unchecked) var wakeups: Wakeups
    @exclusivity(unchecked) var kept: KeptResults

    init(plan: RunPlan, items: ItemSource, output: OutputRoot, baseDirectory: String, options: RunOptions,
         logger: Logger, events: EventPump?, recipes: RecipeBook? = nil) {
        self.plan = plan
        self.options = options
        let seat = options.pool.map(PoolSeat.init)
        self.seat = seat
        wakeups = Wakeups(seat: seat)
        self.recipes = recipes
        kept = KeptResults(cache: options.resultCache, plan: plan, baseDirectory: baseDirectory)
        computesKeptImages = kept.computesImages(plan)
        itemNodes = RawTable(plan.itemNodes)
        workerCount = max(1, options.workers ?? ProcessInfo.processInfo.activeProcessorCount)
        ioPermits = plan.ioPermits
        let capacity = options.window ?? max(8, 2 * (workerCount + ioPermits))
        let instanceCount = (capacity + 1) * plan.nodes.count
        window = ItemWindow(capacity: capacity, nodeCount: plan.nodes.count, items: items)
        ready = ReadyQueues(limits: plan.limits, agingInterval: options.agingInterval, suspended: options.startSuspended)
        inFlight = BodiesInFlight(instances: instanceCount)
        fanIns = FanIns(inputs: plan.nodes.map { $0.inputs.map { ($0.node, $0.isFanIn) } })
        runScope = RunScope(plan: plan)
        shortIO = ShortIO(inlineable: plan.nodes.map { $0.isIO && !($0.stage is any AsyncStage) })
        instances = Array(repeating: NodeInstance(), count: instanceCount)
        payloads = Array(repeating: Payloads(), count: instanceCount)
        let events = RunEvents(events, detail: options.eventDetail, plan: plan)
        self.events = events
        shared = StageContext.Shared(output: output, logger: logger, baseDirectory: baseDirectory, progress: events.progress,
                                     inputHistory: recipes, runFileSuffix: options.runFileSuffix, services: options.services)
    }

    deinit {
        itemNodes.free()
        fanIns.free()
        runScope.free()
    }

    static func monotonicNanos() -> UInt64 { RunClock.nanos() }
    /// Seconds since the run started.
    var now: Double { clock.now }
    func seconds(_ nanos: UInt64) -> Double { clock.seconds(nanos) }

    // MARK: - Addressing (see `ItemWindow`)

    @inline(__always) var nodeCount: Int { window.nodeCount }
    @inline(__always) func runInstance(_ node: Int) -> Int { window.runInstance(node) }
    @inline(__always) func node(of instance: Int) -> Int { window.node(of: instance) }
    @inline(__always) func slot(of instance: Int) -> Int? { window.slot(of: instance) }
    func item(of instance: Int) -> Item { window.item(of: instance) }

    // MARK: - Events

    @inline(__always)
    func emitNode(_ id: Int, _ state: NodeState, message: @autoclosure () -> String? = nil) {
        if events.nodes { reportNode(id, state, message: message()) }
    }

    private func reportNode(_ id: Int, _ state: NodeState, message: String?) {
        let span = inFlight.takeSpan(of: id, ending: state)
        events.node(node(of: id), of: item(of: id), state, time: now, attempt: instances[id].attempt, message: message, span: span)
    }

    // MARK: - Waiting for the end

    /// Blocks the calling thread until the run has ended.
    func waitForEnd() -> RunSummary {
        lock.lock()
        while !tally.isFinished { lock.waitForEnd() }
        defer { lock.unlock() }
        return tally.summaryOrEmpty
    }

    /// Waits for the end of the run: handed the summary at once if it has ended, else when it
    /// does (`unlockAndFlush`).
    func result() async -> RunSummary {
        await withCheckedContinuation { continuation in
            if let summary = lock.withLock({ tally.summaryOrWait(continuation) }) { continuation.resume(returning: summary) }
        }
    }
}
