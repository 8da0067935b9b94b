import Foundation

/// One CPU worker thread of a run: takes a batch of ready nodes from the best queue under one
/// permit, runs them one after another outside the lock with copies of its own (`WorkerNodes`),
/// and ends them all under one lock acquisition. Batches are as long as about
/// `ReadyQueues.batchTarget` seconds of that queue's recent bodies (at most
/// `ReadyQueues.maxBatch`), so tiny bodies share the lock's cost and long ones still go one at a time.
///
/// When bodies are so short that a worker spends more than half as long waiting for the lock
/// as running them, an extra worker mostly burns CPU: workers other than the first then step
/// aside for `standDownNanos` and try again.
struct CPUWorker {
    let engine: RunEngine
    /// Its place among the run's own threads; -1 on a shared `Engine`.
    let index: Int
    private var copies: WorkerNodes
    private var jobs: [RunEngine.Job] = []
    private var results: [Result<Payload, any Error>] = []
    /// Moving averages of nanoseconds spent waiting for the lock and running bodies.
    private var waiting = 0.0, working = 0.0

    /// How long a worker that found the lock busier than its work steps aside.
    static let standDownNanos = 2_000_000

    init(engine: RunEngine, index: Int) {
        self.engine = engine
        self.index = index
        copies = WorkerNodes(plan: engine.plan, shared: engine.shared, computesKeptImages: engine.computesKeptImages)
    }

    /// Starts the run's worker threads; says why when not even one could start. Fewer workers
    /// only make the run slower; none would leave it waiting for ever.
    static func startThreads(for engine: RunEngine) -> String? {
        for index in 0..<engine.workerCount {
            do {
                try DetachedThread.start(name: "workbench.cpu.\(index)") {
                    var worker = CPUWorker(engine: engine, index: index)
                    worker.run()
                }
            } catch {
                return index == 0 ? "\(error)" : nil
            }
        }
        return nil
    }

    /// Own threads: batches until the run ends, asleep when there is no work.
    mutating func run() {
        let engine = self.engine
        engine.lock.lock()
        while !engine.tally.isFinished {
            guard let (q, ids) = engine.pickCPU() else {
                engine.wakeups.idle += 1
                engine.lock.wait()
                engine.wakeups.idle -= 1
                continue
            }
            if take(queue: q, ids) && !engine.tally.isFinished {
                engine.lock.wait(nanoseconds: Self.standDownNanos)
                waiting = 0
                working = 0
            }
        }
        engine.lock.unlock()
    }

    /// On a shared `Engine`: one batch, if the run has one; false when it had none.
    mutating func serveOnce() -> Bool {
        engine.lock.lock()
        defer { engine.lock.unlock() }
        guard !engine.tally.isFinished, let (q, ids) = engine.pickCPU() else { return false }
        _ = take(queue: q, ids)
        return true
    }

    /// Runs the batch `ids` picked from queue `q` and ends it, then the short I/O it made
    /// ready. Called and returns with the lock held. Returns whether this worker should step
    /// aside for a while (never on a shared engine, whose workers have other runs to serve).
    private mutating func take(queue q: Int, _ ids: [Int]) -> Bool {
        let engine = self.engine
        jobs.removeAll(keepingCapacity: true)
        for id in ids {
            let job = engine.beginBody(id, attachesSharedReferences: false)
            if engine.plan.traits[job.node].sharesRunReferences && copies.needsSharedReferences(job.node) {
                copies.adoptSharedReferences(job.node, engine.runScope.references(of: job.node))
            }
            jobs.append(job)
        }
        engine.lock.unlock()
        let started = RunEngine.monotonicNanos()
        runBatch()
        let ended = RunEngine.monotonicNanos()
        let perBody = Double(ended - started) * 1e-9 / Double(jobs.count)
        engine.lock.lock()
        if engine.ready.agingInterval > 0 { engine.ready.recentNow = engine.now }
        if index > 0 {
            waiting = waiting * 0.8 + Double(RunEngine.monotonicNanos() - ended) * 0.2
            working = working * 0.8 + Double(ended - started) * 0.2
        }
        engine.ready.release(q, perBody: perBody)
        let standsDown = index > 0 && waiting * 2 > working
        engine.wakeups.endingWorkerTakesOne = !standsDown
        for index in jobs.indices { engine.endBody(jobs[index], results[index], releasesPermit: false) }
        engine.wakeups.endingWorkerTakesOne = false
        // The permit released may let waiting work of its queue go: say so to the engine's workers.
        if engine.seat != nil { engine.refreshCPUHint() }
        runShortIO()
        return standsDown
    }

    /// Runs the batch outside the lock; with node events on, each body's own start and end are
    /// recorded for timelines.
    private mutating func runBatch() {
        results.removeAll(keepingCapacity: true)
        guard engine.events.nodes else {
            for index in jobs.indices { results.append(engine.judge(jobs[index], copies.run(jobs[index]))) }
            return
        }
        for job in jobs {
            let begin = RunEngine.monotonicNanos()
            results.append(engine.judge(job, copies.run(job)))
            job.span = NodeSpan(lane: .cpu(index), start: engine.seconds(begin), end: engine.seconds(RunEngine.monotonicNanos()))
        }
    }

    /// With the lock held: starts what is pending, running here the I/O bodies short enough for a
    /// worker (`ShortIO`) — and those they make ready in turn, so a small item's write, the next
    /// item's read and its decode follow one another on one thread. Returns with the lock held.
    private func runShortIO() {
        let engine = self.engine
        while !engine.inFlight.pendingIO.isEmpty || engine.tally.isFinished {
            let mine = engine.unlockAndFlush(keepingShortIO: !engine.tally.isFinished)
            guard !mine.isEmpty else { return engine.lock.lock() }
            var ended: [(result: Result<Payload, any Error>, seconds: Double)] = []
            for job in mine {
                let begin = RunEngine.monotonicNanos()
                let result = engine.judge(job, engine.execute(job))
                let end = RunEngine.monotonicNanos()
                if engine.events.nodes { job.span = NodeSpan(lane: .cpu(index), start: engine.seconds(begin), end: engine.seconds(end)) }
                ended.append((result, Double(end - begin) * 1e-9))
            }
            engine.lock.lock()
            engine.ready.recentNow = engine.now
            // The worker goes straight back for work: the first CPU work these make ready is its
            // own; any more wakes a sleeping worker as usual.
            engine.wakeups.endingWorkerTakesOne = true
            for (job, end) in zip(mine, ended) {
                engine.shortIO.note(job.node, seconds: end.seconds)
                engine.endBody(job, end.result)
            }
            engine.wakeups.endingWorkerTakesOne = false
        }
    }
}
