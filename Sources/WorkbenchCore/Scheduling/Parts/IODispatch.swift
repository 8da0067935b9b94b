import Foundation

/// Starts the I/O bodies a run began under its lock, once the lock is released: synchronous
/// ones on `IOThreads`, async ones (downloads) here, holding no thread while they wait. Each
/// body's end comes back to the scheduler (`RunScheduler.endBody`) under the lock.
struct IODispatch {
    let scheduler: RunScheduler

    /// Starts `jobs`. `callerTakesOne`: the caller is an I/O thread about to take its next job,
    /// so the first body is left for it instead of waking another thread (an item's write
    /// ending starts the next item's read: a thread switch per item saved); any more wake
    /// others, so a burst still runs side by side. Returns the async bodies that ended inside
    /// their start, for the caller to end under the lock: a rerun's unchanged inputs end one
    /// after another, and each would otherwise start the next a few stack frames deeper
    /// (3,000 items overflowed it).
    func start(_ jobs: [RunScheduler.Job], callerTakesOne: Bool) -> [(job: RunScheduler.Job, result: Result<Payload, any Error>)] {
        var callerTakesOne = callerTakesOne
        var endedInline: [(job: RunScheduler.Job, result: Result<Payload, any Error>)] = []
        for job in jobs {
            let node = scheduler.plan.nodes[job.node]
            if let stage = node.stage as? any AsyncStage {
                if let result = startAsync(job, stage, node) { endedInline.append((job, result)) }
                continue
            }
            IOThreads.shared.run(limit: scheduler.ioPermits, wakes: !callerTakesOne) { [scheduler] thread in
                let begin = RunScheduler.monotonicNanos()
                let result = scheduler.judge(job, scheduler.execute(job))
                let end = RunScheduler.monotonicNanos()
                if scheduler.events.nodes { job.span = NodeSpan(lane: .io(thread), start: scheduler.seconds(begin), end: scheduler.seconds(end)) }
                Self.finish(job, result, scheduler: scheduler, seconds: Double(end - begin) * 1e-9, onIOThread: true)
            }
            callerTakesOne = false
        }
        return endedInline
    }

    /// Starts an async body. Returns its result when it ended before `start` returned (an input
    /// known to be unchanged needs no request); else nil, and whoever does the work ends it.
    private func startAsync(_ job: RunScheduler.Job, _ stage: any AsyncStage, _ node: RunPlan.Node) -> Result<Payload, any Error>? {
        // Cancelled between being picked and getting here: the body never starts.
        if job.token.isCancelled { return .failure(WorkbenchError.cancelled) }
        let inputs = StageInputs(fromSlots: job.held.from, referenceNames: node.singleReferenceNames,
                                 referenceSlots: job.held.references, lists: job.held.lists)
        let scheduler = self.scheduler
        let begin = scheduler.events.nodes ? scheduler.now : 0
        let inline = InlineOutcome()
        stage.start(inputs, context: job.context(nodeID: node.id, timeout: node.timeout, shared: scheduler.shared)) { result in
            if scheduler.events.nodes { job.span = NodeSpan(lane: .async, start: begin, end: scheduler.now) }
            let judged = scheduler.judge(job, result)
            if inline.keep(judged) { return }
            Self.finish(job, judged, scheduler: scheduler)
        }
        return inline.started()
    }

    /// Ends a body that ran off the lock. `onIOThread`: called last by a job on one of
    /// `IOThreads`, which takes more jobs next. `seconds`: how long the body took (`ShortIO`).
    private static func finish(_ job: RunScheduler.Job, _ result: Result<Payload, any Error>, scheduler: RunScheduler,
                               seconds: Double? = nil, onIOThread: Bool = false) {
        scheduler.lock.lock()
        scheduler.ready.recentNow = scheduler.now
        if let seconds { scheduler.shortIO.note(job.node, seconds: seconds) }
        scheduler.endBody(job, result)
        scheduler.unlockAndFlush(fromIOThread: onIOThread)
    }
}
