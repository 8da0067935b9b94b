import Foundation

/// Starting a run, the CPU workers' loop, handing I/O bodies to I/O threads, and running bodies.
extension RunEngine {
    func start() {
        lock.lock()
        events.started(items: window.total)
        for n in plan.runNodes { setUpRunNode(n) }
        claimRunOutputs()
        fillWindow()
        for n in plan.runNodes where instances[runInstance(n)].state == .pending && instances[runInstance(n)].remaining == 0 {
            makeReady(runInstance(n))
        }
        checkDone()
        unlockAndFlush()
        for index in 0..<workerCount {
            do {
                try DetachedThread.start(name: "workbench.cpu.\(index)") { [self] in workerLoop(index: index) }
            } catch {
                // Fewer workers only make the run slower; none would leave it waiting for ever.
                guard index == 0 else { return }
                lock.lock()
                tally.stopReason = "\(error)"
                stop(.outOfResources)
                unlockAndFlush()
                return
            }
        }
    }

    /// A CPU worker: takes a batch of ready nodes from the best queue under one permit, runs them
    /// one after another outside the lock, and ends them all under one lock acquisition. Batches
    /// are as long as about `ReadyQueues.batchTarget` seconds of that queue's recent bodies (at most
    /// `ReadyQueues.maxBatch`), so tiny bodies share the lock's cost and long ones still go one at a time.
    ///
    /// When bodies are so short that a worker spends more than half as long waiting for the lock
    /// as running them, an extra worker mostly burns CPU: workers other than the first then step
    /// aside for `standDownNanos` and try again.
    func workerLoop(index: Int) {
        var results: [Result<Payload, any Error>] = []
        var jobs: [Job] = []
        var waiting = 0.0, working = 0.0
        var copies = WorkerNodes(plan: plan, shared: shared, computesKeptImages: computesKeptImages)
        lock.lock()
        while !tally.isFinished {
            if let (q, ids) = pickCPU() {
                jobs.removeAll(keepingCapacity: true)
                for id in ids {
                    let job = beginBody(id, attachesSharedReferences: false)
                    if plan.traits[job.node].sharesRunReferences && copies.needsSharedReferences(job.node) {
                        copies.adoptSharedReferences(job.node, runScope.references(of: job.node))
                    }
                    jobs.append(job)
                }
                lock.unlock()
                let started = Self.monotonicNanos()
                results.removeAll(keepingCapacity: true)
                if events.nodes {
                    // Each body's own start and end, for timelines.
                    for job in jobs {
                        let begin = Self.monotonicNanos()
                        results.append(judge(job, copies.run(job)))
                        job.span = NodeSpan(lane: .cpu(index), start: seconds(begin), end: seconds(Self.monotonicNanos()))
                    }
                } else {
                    for index in jobs.indices { results.append(judge(jobs[index], copies.run(jobs[index]))) }
                }
                let ended = Self.monotonicNanos()
                let perBody = Double(ended - started) * 1e-9 / Double(jobs.count)
                lock.lock()
                if ready.agingInterval > 0 { recentNow = now }
                if index > 0 {
                    waiting = waiting * 0.8 + Double(Self.monotonicNanos() - ended) * 0.2
                    working = working * 0.8 + Double(ended - started) * 0.2
                }
                ready.release(q, perBody: perBody)
                let standsDown = index > 0 && waiting * 2 > working
                // A worker going straight back for work takes the first it makes ready: waking
                // another for it costs a thread switch and the lock twice.
                endingWorkerTakesOne = !standsDown
                for index in jobs.indices { endBody(jobs[index], results[index], releasesPermit: false) }
                endingWorkerTakesOne = false
                flushRunningShortIO(worker: index)
                if standsDown && !tally.isFinished {
                    lock.wait(nanoseconds: Self.standDownNanos)
                    waiting = 0
                    working = 0
                }
                continue
            }
            idleWorkers += 1
            lock.wait()
            idleWorkers -= 1
        }
        lock.unlock()
    }

    /// With the lock held: starts what is pending, running here the I/O bodies short enough for a
    /// worker (`ShortIO`) — and those they make ready in turn, so a small item's write, the next
    /// item's read and its decode follow one another on one thread. Returns with the lock held.
    private func flushRunningShortIO(worker: Int) {
        while !pendingIO.isEmpty || tally.isFinished {
            let mine = unlockAndFlush(keepingShortIO: !tally.isFinished)
            guard !mine.isEmpty else { return lock.lock() }
            var ended: [(result: Result<Payload, any Error>, seconds: Double)] = []
            for job in mine {
                let begin = Self.monotonicNanos()
                let result = judge(job, execute(job))
                let end = Self.monotonicNanos()
                if events.nodes { job.span = NodeSpan(lane: .cpu(worker), start: seconds(begin), end: seconds(end)) }
                ended.append((result, Double(end - begin) * 1e-9))
            }
            lock.lock()
            recentNow = now
            // The worker goes straight back for work: the first CPU work these make ready is its
            // own; any more wakes a sleeping worker as usual.
            endingWorkerTakesOne = true
            for (job, end) in zip(mine, ended) {
                shortIO.note(job.node, seconds: end.seconds)
                endBody(job, end.result)
            }
            endingWorkerTakesOne = false
        }
    }

    /// `onIOThread`: called last by a job on one of `IOThreads`, which takes more jobs next.
    /// `seconds`: how long the body took (`ShortIO`).
    private func finishIO(_ job: Job, _ result: Result<Payload, any Error>, seconds: Double? = nil, onIOThread: Bool = false) {
        lock.lock()
        recentNow = now
        if let seconds { shortIO.note(job.node, seconds: seconds) }
        endBody(job, result)
        unlockAndFlush(fromIOThread: onIOThread)
    }

    /// Starts an async body. Returns its result when it ended before `start` returned (an input
    /// known to be unchanged needs no request), for the caller to end it; else nil, and whoever
    /// does the work ends it.
    private func startAsync(_ job: Job, _ stage: any AsyncStage, _ node: RunPlan.Node) -> Result<Payload, any Error>? {
        // Cancelled between being picked and getting here: the body never starts.
        if job.token.isCancelled { return .failure(WorkbenchError.cancelled) }
        let inputs = StageInputs(fromSlots: job.held.from, referenceNames: node.singleReferenceNames,
                                 referenceSlots: job.held.references, lists: job.held.lists)
        let context = StageContext(item: job.item, nodeID: node.id, cancellation: job.token, attempt: job.attempt,
                                   timeout: node.timeout, shared: shared, inputRecord: shared.inputHistory != nil ? job : nil)
        let begin = events.nodes ? now : 0
        let inline = InlineOutcome()
        stage.start(inputs, context: context) { [self] result in
            if events.nodes { job.span = NodeSpan(lane: .async, start: begin, end: now) }
            let judged = judge(job, result)
            if inline.keep(judged) { return }
            finishIO(job, judged)
        }
        return inline.started()
    }

    /// Runs an I/O body (CPU workers use their own copies, see `WorkerNodes`).
    func execute(_ job: Job) -> Result<Payload, any Error> {
        let node = plan.nodes[job.node]
        return Self.call(job, stage: node.stage, id: node.id, referenceNames: node.singleReferenceNames,
                         references: job.held.references, timeout: node.timeout, shared: shared,
                         computesImage: computesKeptImages[job.node])
    }

    /// Runs a body; with `computesImage`, an image it returns is computed into memory to be kept.
    static func call(_ job: Job, stage: borrowing any Stage, id: String, referenceNames: [String], references: [Payload?],
                     timeout: Double?, shared: StageContext.Shared, computesImage: Bool) -> Result<Payload, any Error> {
        // Cancelled between being picked and getting here: the body never starts.
        if job.token.isCancelled { return .failure(WorkbenchError.cancelled) }
        let inputs = StageInputs(fromSlots: job.held.from, referenceNames: referenceNames,
                                 referenceSlots: references, lists: job.held.lists)
        // Only an incremental run has an input's identity to record (`StageContext.recordInput`).
        let context = StageContext(item: job.item, nodeID: id, cancellation: job.token, attempt: job.attempt,
                                   timeout: timeout, shared: shared, inputRecord: shared.inputHistory != nil ? job : nil)
        do {
            let payload = try stage.run(inputs, context: context)
            if computesImage, case .image(let image) = payload { return .success(.image(try image.keptForReuse())) }
            return .success(payload)
        } catch {
            return .failure(error)
        }
    }

    /// Releases the lock, then starts the I/O bodies and delivers the result decided under it.
    /// `fromIOThread`: the caller is an I/O thread about to take its next job, so the first body
    /// is left for it instead of waking another thread (an item's write ending starts the next
    /// item's read: a thread switch per item saved); any more wake others, so a burst still runs
    /// side by side.
    ///
    /// `keepingShortIO`: the caller is a CPU worker, which runs the bodies `ShortIO` deems short
    /// itself; they are returned, begun but not run.
    @discardableResult
    func unlockAndFlush(fromIOThread: Bool = false, keepingShortIO: Bool = false) -> [Job] {
        var kept: [Job] = []
        var first = true
        while true {
            var jobs = pendingIO
            pendingIO = []
            if first && keepingShortIO && !jobs.isEmpty {
                kept = jobs.filter { shortIO.runsInline($0.node) }
                if !kept.isEmpty { jobs.removeAll { shortIO.runsInline($0.node) } }
            }
            let done = tally.summary
            let continuations = done != nil ? waiters : []
            if done != nil { waiters = [] }
            let rest = done != nil ? tally.leftovers : nil
            if done != nil { tally.leftovers = nil }
            lock.unlock()
            var callerTakesOne = first && fromIOThread
            // Async bodies that ended inside their start are ended by this loop, not from within
            // the start: a rerun's unchanged inputs end one after another, and each would
            // otherwise start the next a few stack frames deeper (3,000 items overflowed it).
            var endedInline: [(job: Job, result: Result<Payload, any Error>)] = []
            for job in jobs {
                let node = plan.nodes[job.node]
                if let stage = node.stage as? any AsyncStage {
                    // Started here, finished by whoever does the work: no thread waits for it.
                    if let result = startAsync(job, stage, node) { endedInline.append((job, result)) }
                    continue
                }
                IOThreads.shared.run(limit: ioPermits, wakes: !callerTakesOne) { [self] thread in
                    let begin = Self.monotonicNanos()
                    let result = judge(job, execute(job))
                    let end = Self.monotonicNanos()
                    if events.nodes { job.span = NodeSpan(lane: .io(thread), start: seconds(begin), end: seconds(end)) }
                    finishIO(job, result, seconds: Double(end - begin) * 1e-9, onIOThread: true)
                }
                callerTakesOne = false
            }
            if let done {
                if let rest { reportLeftovers(rest) }
                events.finished(done)
                for continuation in continuations { continuation.resume(returning: done) }
            }
            guard !endedInline.isEmpty else { return kept }
            first = false
            lock.lock()
            recentNow = now
            for ended in endedInline { endBody(ended.job, ended.result) }
        }
    }

    /// The best ready CPU work, taken off its queue with the queue's permit (`ReadyQueues`).
    func pickCPU() -> (queue: Int, instances: [Int])? {
        guard !stopping else { return nil }
        let time = ready.agingInterval > 0 ? now : 0
        recentNow = time
        return ready.pickCPU(now: time, instances: &instances)
    }

    /// How long a worker that found the lock busier than its work steps aside.
    static let standDownNanos = 2_000_000

    /// Begins I/O bodies while their queues have permits; they start once the lock is released.
    func startIO() {
        guard !stopping else { return }
        while let id = ready.nextIO(instances) { pendingIO.append(beginBody(id)) }
    }

    /// Hands out instance `id`'s body (its queue's permit is already taken).
    func beginBody(_ id: Int, attachesSharedReferences: Bool = true) -> Job {
        let n = node(of: id)
        let node = plan.traits[n]
        let (token, stamp) = inFlight.begin(id)
        instances[id].state = .running
        instances[id].attempt += 1
        instances[id].stamp = stamp
        if events.items, let s = slot(of: id), window.slots[s].started == nil { window.slots[s].started = now }
        emitNode(id, .running)
        if let timeout = node.timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
                self?.timeoutFired(id, stamp: stamp)
            }
        }
        var held = payloads[id]
        if node.sharesRunReferences && attachesSharedReferences { held.references = runScope.references(of: n) }
        return Job(instance: id, node: n, stamp: stamp, attempt: instances[id].attempt, item: item(of: id),
                   held: held, token: token)
    }
}
