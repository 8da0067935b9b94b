import Foundation

/// Starting a run, the CPU workers' loop, handing I/O bodies to I/O threads, and running bodies.
extension RunEngine {
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
            let thread = Thread { [self] in workerLoop(index: index) }
            thread.name = "workbench.cpu.\(index)"
            thread.start()
        }
    }

    /// A CPU worker: takes a batch of ready nodes from the best queue under one permit, runs them
    /// one after another outside the lock, and ends them all under one lock acquisition. Batches
    /// are as long as about `batchTarget` seconds of that queue's recent bodies (at most
    /// `maxBatch`), so tiny bodies share the lock's cost and long ones still go one at a time.
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
        while !finished {
            if let (q, ids) = pickCPU() {
                queues[q].running += 1
                jobs.removeAll(keepingCapacity: true)
                for id in ids {
                    let job = beginBody(id, takesPermit: false, attachesSharedReferences: false)
                    if plan.traits[job.node].sharesRunReferences && copies.needsSharedReferences(job.node) {
                        copies.adoptSharedReferences(job.node, sharedRunReferences(of: job.node))
                    }
                    jobs.append(job)
                }
                lock.unlock()
                let started = Self.monotonicNanos()
                results.removeAll(keepingCapacity: true)
                if nodeEvents {
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
                if agingInterval > 0 { recentNow = now }
                if index > 0 {
                    waiting = waiting * 0.8 + Double(Self.monotonicNanos() - ended) * 0.2
                    working = working * 0.8 + Double(ended - started) * 0.2
                }
                queues[q].running -= 1
                queues[q].averageBody = queues[q].averageBody * 0.75 + perBody * 0.25
                for index in jobs.indices { endBody(jobs[index], results[index], releasesPermit: false) }
                if !pendingIO.isEmpty || summary != nil {
                    unlockAndFlush()
                    lock.lock()
                }
                if index > 0 && waiting * 2 > working && !finished {
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

    private func finishIO(_ job: Job, _ result: Result<Payload, any Error>) {
        lock.lock()
        recentNow = now
        endBody(job, result)
        unlockAndFlush()
    }

    private func startAsync(_ job: Job, _ stage: any AsyncStage, _ node: RunPlan.Node) {
        // Cancelled between being picked and getting here: the body never starts.
        if job.token.isCancelled { return finishIO(job, .failure(WorkbenchError.cancelled)) }
        let inputs = StageInputs(fromSlots: job.held.from, referenceNames: node.singleReferenceNames,
                                 referenceSlots: job.held.references, lists: job.held.lists)
        let context = StageContext(item: job.item, nodeID: node.id, cancellation: job.token, attempt: job.attempt,
                                   timeout: node.timeout, shared: shared)
        let begin = nodeEvents ? now : 0
        stage.start(inputs, context: context) { [self] result in
            if nodeEvents { job.span = NodeSpan(lane: .async, start: begin, end: now) }
            finishIO(job, judge(job, result))
        }
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
        let context = StageContext(item: job.item, nodeID: id, cancellation: job.token, attempt: job.attempt,
                                   timeout: timeout, shared: shared)
        do {
            let payload = try stage.run(inputs, context: context)
            if computesImage, case .image(let image) = payload { return .success(.image(try image.keptForReuse())) }
            return .success(payload)
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
            let node = plan.nodes[job.node]
            if let stage = node.stage as? any AsyncStage {
                // Started here, finished by whoever does the work: no thread waits for it.
                startAsync(job, stage, node)
                continue
            }
            IOThreads.shared.run(limit: ioPermits) { [self] thread in
                let begin = nodeEvents ? now : 0
                let result = judge(job, execute(job))
                if nodeEvents { job.span = NodeSpan(lane: .io(thread), start: begin, end: now) }
                finishIO(job, result)
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
    func pickCPU() -> (queue: Int, instances: [Int])? {
        guard !runSuspended, !stopping else { return nil }
        var best: (queue: Int, qos: Int, depth: Int, item: Int)?
        let time = agingInterval > 0 ? now : 0
        recentNow = time
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
        batchScratch = []
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
    /// How long a worker that found the lock busier than its work steps aside.
    static let standDownNanos = 2_000_000
    static let maxBatch = 32

    /// Drops stale entries (re-bucketed or no longer ready) and returns the current head.
    func peekCurrent(_ heap: inout ReadyQueue) -> ReadyKey? {
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

    func beginBody(_ id: Int, takesPermit: Bool = true, attachesSharedReferences: Bool = true) -> Job {
        let n = node(of: id)
        let node = plan.traits[n]
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
        var held = payloads[id]
        if node.sharesRunReferences && attachesSharedReferences { held.references = sharedRunReferences(of: n) }
        return Job(instance: id, node: n, stamp: stamps, attempt: instances[id].attempt, item: item(of: id),
                   held: held, token: token)
    }

    /// The run-scope payloads node `n` refers to; they exist once the node is ready.
    func sharedRunReferences(of n: Int) -> [Payload?] {
        if let cached = sharedReferences[n] { return cached }
        var references = [Payload?](repeating: nil, count: plan.traits[n].referenceCount)
        for edge in plan.nodes[n].inputs where edge.singleIndex >= 0 { references[edge.singleIndex] = runOutputs[edge.node] }
        sharedReferences[n] = references
        return references
    }
}
