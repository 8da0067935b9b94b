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
    let scheduler: RunScheduler
    /// Its place among the run's own threads; -1 on a shared `WorkerPool`.
    let index: Int
    private var copies: WorkerNodes
    private var jobs: [RunScheduler.Job] = []
    private var results: [Result<Payload, any Error>] = []
    /// Moving averages of nanoseconds spent waiting for the lock and running bodies.
    private var waiting = 0.0, working = 0.0

    /// How long a worker that found the lock busier than its work steps aside.
    static let standDownNanos = 2_000_000

    init(scheduler: RunScheduler, index: Int) {
        self.scheduler = scheduler
        self.index = index
        copies = WorkerNodes(plan: scheduler.plan, shared: scheduler.shared, computesKeptImages: scheduler.computesKeptImages)
    }

    /// Starts the run's worker threads; says why when not even one could start. Fewer workers
    /// only make the run slower; none would leave it waiting for ever.
    static func startThreads(for scheduler: RunScheduler) -> String? {
        for index in 0..<scheduler.workerCount {
            do {
                try DetachedThread.start(name: "workbench.cpu.\(index)") {
                    var worker = CPUWorker(scheduler: scheduler, index: index)
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
        let scheduler = self.scheduler
        scheduler.lock.lock()
        while !scheduler.tally.isFinished {
            guard let (q, ids) = scheduler.pickCPU() else {
                scheduler.wakeups.idle += 1
                scheduler.lock.wait()
                scheduler.wakeups.idle -= 1
                continue
            }
            if take(queue: q, ids) && !scheduler.tally.isFinished {
                scheduler.lock.wait(nanoseconds: Self.standDownNanos)
                waiting = 0
                working = 0
            }
        }
        scheduler.lock.unlock()
    }

    /// On a shared `WorkerPool`: one batch, if the run has one; false when it had none.
    mutating func serveOnce() -> Bool {
        scheduler.lock.lock()
        defer { scheduler.lock.unlock() }
        guard !scheduler.tally.isFinished, let (q, ids) = scheduler.pickCPU() else { return false }
        _ = take(queue: q, ids)
        return true
    }

    /// Runs the batch `ids` picked from queue `q` and ends it, then the short I/O it made
    /// ready. Called and returns with the lock held. Returns whether this worker should step
    /// aside for a while (never on a shared scheduler, whose workers have other runs to serve).
    private mutating func take(queue q: Int, _ ids: [Int]) -> Bool {
        let scheduler = self.scheduler
        jobs.removeAll(keepingCapacity: true)
        for id in ids {
            let job = scheduler.beginBody(id, attachesSharedReferences: false)
            if scheduler.plan.traits[job.node].sharesRunReferences && copies.needsSharedReferences(job.node) {
                copies.adoptSharedReferences(job.node, scheduler.runScope.references(of: job.node))
            }
            jobs.append(job)
        }
        scheduler.lock.unlock()
        let started = RunScheduler.monotonicNanos()
        runBatch()
        let ended = RunScheduler.monotonicNanos()
        let perBody = Double(ended - started) * 1e-9 / Double(jobs.count)
        scheduler.lock.lock()
        if scheduler.ready.agingInterval > 0 { scheduler.ready.recentNow = scheduler.now }
        if index > 0 {
            waiting = waiting * 0.8 + Double(RunScheduler.monotonicNanos() - ended) * 0.2
            working = working * 0.8 + Double(ended - started) * 0.2
        }
        scheduler.ready.release(q, perBody: perBody)
        let standsDown = index > 0 && waiting * 2 > working
        scheduler.wakeups.endingWorkerTakesOne = !standsDown
        for index in jobs.indices { scheduler.endBody(jobs[index], results[index], releasesPermit: false) }
        scheduler.wakeups.endingWorkerTakesOne = false
        // The permit released may let waiting work of its queue go: say so to the scheduler's workers.
        if scheduler.seat != nil { scheduler.refreshCPUHint() }
        runShortIO()
        return standsDown
    }

    /// Runs the batch outside the lock; with node events on, each body's own start and end are
    /// recorded for timelines.
    private mutating func runBatch() {
        results.removeAll(keepingCapacity: true)
        guard scheduler.events.nodes else {
            for index in jobs.indices { results.append(scheduler.judge(jobs[index], copies.run(jobs[index]))) }
            return
        }
        for job in jobs {
            let begin = RunScheduler.monotonicNanos()
            results.append(scheduler.judge(job, copies.run(job)))
            job.span = NodeSpan(lane: .cpu(index), start: scheduler.seconds(begin), end: scheduler.seconds(RunScheduler.monotonicNanos()))
        }
    }

    /// With the lock held: starts what is pending, running here the I/O bodies short enough for a
    /// worker (`ShortIO`) — and those they make ready in turn, so a small item's write, the next
    /// item's read and its decode follow one another on one thread. Returns with the lock held.
    private func runShortIO() {
        let scheduler = self.scheduler
        while !scheduler.inFlight.pendingIO.isEmpty || scheduler.tally.isFinished {
            let mine = scheduler.unlockAndFlush(keepingShortIO: !scheduler.tally.isFinished)
            guard !mine.isEmpty else { return scheduler.lock.lock() }
            var ended: [(result: Result<Payload, any Error>, seconds: Double)] = []
            for job in mine {
                let begin = RunScheduler.monotonicNanos()
                let result = scheduler.judge(job, scheduler.execute(job))
                let end = RunScheduler.monotonicNanos()
                if scheduler.events.nodes { job.span = NodeSpan(lane: .cpu(index), start: scheduler.seconds(begin), end: scheduler.seconds(end)) }
                ended.append((result, Double(end - begin) * 1e-9))
            }
            scheduler.lock.lock()
            scheduler.ready.recentNow = scheduler.now
            // The worker goes straight back for work: the first CPU work these make ready is its
            // own; any more wakes a sleeping worker as usual.
            scheduler.wakeups.endingWorkerTakesOne = true
            for (job, end) in zip(mine, ended) {
                scheduler.shortIO.note(job.node, seconds: end.seconds)
                scheduler.endBody(job, end.result)
            }
            scheduler.wakeups.endingWorkerTakesOne = false
        }
    }
}
