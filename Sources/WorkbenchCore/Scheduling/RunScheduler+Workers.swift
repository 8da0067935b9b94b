import Foundation

/// Starting a run's threads, releasing the lock with what was decided under it, and handing bodies out.
extension RunScheduler {
    func start() {
        window.listen { [weak self] in self?.itemsArrived() }
        lock.lock()
        events.started(items: window.total)
        for n in plan.runNodes { (instances[runInstance(n)], payloads[runInstance(n)]) = RunScope.instance(ofRunNode: n, plan: plan) }
        plan.claimRunWrites(in: shared.output, runFileSuffix: shared.runFileSuffix)
        fillWindow()
        for n in plan.runNodes where instances[runInstance(n)].state == .pending && instances[runInstance(n)].remaining == 0 {
            makeReady(runInstance(n))
        }
        checkDone()
        unlockAndFlush()
        let refusal = seat.map { $0.pool.attach(self) ? nil : "the worker pool it was handed was shut down" } ?? CPUWorker.startThreads(for: self)
        if let refusal {
            lock.lock()
            tally.stopReason = refusal
            stop(.outOfResources)
            unlockAndFlush()
        }
    }

    /// Runs an I/O body (CPU workers use their own copies, see `WorkerNodes`).
    func execute(_ job: Job) -> Result<Payload, any Error> {
        let node = plan.nodes[job.node]
        return job.run(stage: node.stage, id: node.id, referenceNames: node.singleReferenceNames, references: job.held.references,
                       timeout: node.timeout, shared: shared, computesImage: computesKeptImages[job.node])
    }

    /// Which of the item's files are up to date, once the body that read its input returned.
    func judge(_ job: Job, _ result: Result<Payload, any Error>) -> Result<Payload, any Error> {
        job.judged(result, recipes: recipes, nodeID: plan.nodes[job.node].id)
    }

    /// Releases the lock, then starts the I/O bodies (`IODispatch`) and delivers the result
    /// decided under it. `fromIOThread`: the caller is an I/O thread about to take its next job.
    ///
    /// `keepingShortIO`: the caller is a CPU worker, which runs the bodies `ShortIO` deems short
    /// itself; they are returned, begun but not run.
    @discardableResult
    func unlockAndFlush(fromIOThread: Bool = false, keepingShortIO: Bool = false) -> [Job] {
        var kept: [Job] = []
        var first = true
        while true {
            var jobs = inFlight.pendingIO
            inFlight.pendingIO = []
            if first && keepingShortIO && !jobs.isEmpty {
                kept = jobs.filter { shortIO.runsInline($0.node) }
                if !kept.isEmpty { jobs.removeAll { shortIO.runsInline($0.node) } }
            }
            let end = tally.takeEnd()
            lock.unlock()
            let endedInline = IODispatch(scheduler: self).start(jobs, callerTakesOne: first && fromIOThread)
            if let end {
                // What a stop left is reported outside the lock, once no other thread touches the run.
                events.ended(end.summary, leftovers: end.leftovers, runBase: runInstance(0), time: now, notes: shared.takeNotes(of:))
                for waiter in end.waiters { waiter.resume(returning: end.summary) }
            }
            guard !endedInline.isEmpty else { return kept }
            first = false
            lock.lock()
            ready.recentNow = now
            for ended in endedInline { endBody(ended.job, ended.result) }
        }
    }

    /// The best ready CPU work, taken off its queue with the queue's permit (`ReadyQueues`).
    func pickCPU() -> (queue: Int, instances: [Int])? {
        guard !tally.stopping else { return nil }
        let time = ready.agingInterval > 0 ? now : 0
        ready.recentNow = time
        let picked = ready.pickCPU(now: time, instances: &instances)
        if seat != nil { refreshCPUHint() }
        return picked
    }

    /// On a shared scheduler: says again what CPU work a worker could take now, waking one for it.
    func refreshCPUHint() { seat?.reset(to: tally.stopping ? -1 : ready.bestCPUQoS(instances)) }

    /// Begins I/O bodies while their queues have permits; they start once the lock is released.
    func startIO() {
        guard !tally.stopping else { return }
        while let id = ready.nextIO(instances) { inFlight.pendingIO.append(beginBody(id)) }
    }

    /// Hands out instance `id`'s body (its queue's permit is already taken).
    func beginBody(_ id: Int, attachesSharedReferences: Bool = true) -> Job {
        let n = node(of: id)
        let node = plan.traits[n]
        let (token, stamp) = inFlight.begin(id)
        instances[id].begin(stamp: stamp)
        if events.items, let s = slot(of: id) { window.noteStarted(s, at: now) }
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
