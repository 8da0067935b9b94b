import Foundation

/// Starts the I/O bodies a run began under its lock, once the lock is released: synchronous
/// ones on `IOThreads`, async ones (downloads) here, holding no thread while they wait. Each
/// body's end comes back to the engine (`RunEngine.endBody`) under the lock.
struct IODispatch {
    let engine: RunEngine

    /// Starts `jobs`. `callerTakesOne`: the caller is an I/O thread about to take its next job,
    /// so the first body is left for it instead of waking another thread (an item's write
    /// ending starts the next item's read: a thread switch per item saved); any more wake
    /// others, so a burst still runs side by side. Returns the async bodies that ended inside
    /// their start, for the caller to end under the lock: a rerun's unchanged inputs end one
    /// after another, and each would otherwise start the next a few stack frames deeper
    /// (3,000 items overflowed it).
    func start(_ jobs: [RunEngine.Job], callerTakesOne: Bool) -> [(job: RunEngine.Job, result: Result<Payload, any Error>)] {
        var callerTakesOne = callerTakesOne
        var endedInline: [(job: RunEngine.Job, result: Result<Payload, any Error>)] = []
        for job in jobs {
            let node = engine.plan.nodes[job.node]
            if let stage = node.stage as? any AsyncStage {
                if let result = startAsync(job, stage, node) { endedInline.append((job, result)) }
                continue
            }
            IOThreads.shared.run(limit: engine.ioPermits, wakes: !callerTakesOne) { [engine] thread in
                let begin = RunEngine.monotonicNanos()
                let result = engine.judge(job, engine.execute(job))
                let end = RunEngine.monotonicNanos()
                if engine.events.nodes { job.span = NodeSpan(lane: .io(thread), start: engine.seconds(begin), end: engine.seconds(end)) }
                Self.finish(job, result, engine: engine, seconds: Double(end - begin) * 1e-9, onIOThread: true)
            }
            callerTakesOne = false
        }
        return endedInline
    }

    /// Starts an async body. Returns its result when it ended before `start` returned (an input
    /// known to be unchanged needs no request); else nil, and whoever does the work ends it.
    private func startAsync(_ job: RunEngine.Job, _ stage: any AsyncStage, _ node: RunPlan.Node) -> Result<Payload, any Error>? {
        // Cancelled between being picked and getting here: the body never starts.
        if job.token.isCancelled { return .failure(WorkbenchError.cancelled) }
        let inputs = StageInputs(fromSlots: job.held.from, referenceNames: node.singleReferenceNames,
                                 referenceSlots: job.held.references, lists: job.held.lists)
        let engine = self.engine
        let begin = engine.events.nodes ? engine.now : 0
        let inline = InlineOutcome()
        stage.start(inputs, context: job.context(nodeID: node.id, timeout: node.timeout, shared: engine.shared)) { result in
            if engine.events.nodes { job.span = NodeSpan(lane: .async, start: begin, end: engine.now) }
            let judged = engine.judge(job, result)
            if inline.keep(judged) { return }
            Self.finish(job, judged, engine: engine)
        }
        return inline.started()
    }

    /// Ends a body that ran off the lock. `onIOThread`: called last by a job on one of
    /// `IOThreads`, which takes more jobs next. `seconds`: how long the body took (`ShortIO`).
    private static func finish(_ job: RunEngine.Job, _ result: Result<Payload, any Error>, engine: RunEngine,
                               seconds: Double? = nil, onIOThread: Bool = false) {
        engine.lock.lock()
        engine.ready.recentNow = engine.now
        if let seconds { engine.shortIO.note(job.node, seconds: seconds) }
        engine.endBody(job, result)
        engine.unlockAndFlush(fromIOThread: onIOThread)
    }
}
