import Foundation

/// State changes of node instances, and leaving out what an incremental run finds up to date
/// (`Job.judged` decides it outside the lock). Every function here runs with the lock held.
extension RunScheduler {
    func makeReady(_ id: Int) {
        instances[id].becomeReady(version: ready.nextVersion(), at: ready.recentNow)
        // A copy left out (`Payload.omitted`) is passed on without running; `write` records it.
        if plan.omitsRepeats, let reason = payloads[id].omitted, !(plan.nodes[node(of: id)].stage is RecordsOmission) {
            succeed(id, with: .omitted(reason))
            return
        }
        // A result an earlier run made from the same recipe: taken, not made again (and never
        // queued, so no "ready" for it either).
        // The cache is looked at only when there is one: a call on `kept` copies it first.
        if kept.cache != nil, let found = kept.lookup(node: node(of: id), item: item(of: id)) {
            if kept.add(id, found) {
                while let next = kept.take() { succeed(next.instance, with: next.payload) }
            }
            return
        }
        emitNode(id, .ready)
        push(id)
    }

    /// (Re)files a ready instance in its queue's heap under its current priority.
    func push(_ id: Int) {
        let node = plan.traits[node(of: id)]
        let key = ReadyKey(qos: instances[id].qos, item: window.itemIndex(of: id), depth: node.depth,
                           instance: id, version: instances[id].version)
        ready.file(key, queue: node.queue, io: node.isIO)
        if node.isIO {
            startIO()
        } else {
            wakeups.cpuWorkFiled(qos: instances[id].qos, lock: lock)
        }
    }

    /// A body returned (or was abandoned after a stop).
    func endBody(_ job: Job, _ result: Result<Payload, any Error>, releasesPermit: Bool = true) {
        let id = job.instance
        if let span = job.span { inFlight.endingSpan = (id, span) }
        defer { inFlight.endingSpan = nil }
        let n = node(of: id)
        let node = plan.traits[n]
        if releasesPermit {
            ready.release(node.queue)
            // An I/O body on a queue CPU work also uses held a permit that work may be waiting
            // for, with every worker asleep: wake one (nothing else would).
            if seat != nil { refreshCPUHint() } else if wakeups.idle > 0 && ready.hasCPUWork(in: node.queue) { lock.signal() }
        }
        inFlight.end(id, recyclesToken: !tally.stopping)
        tally.nodesRun += 1
        if tally.stopping {
            // Nothing moves on after a stop; a file already in place still counts.
            if case .success(.file(let file)) = result, let s = slot(of: id), !window.slots.isEmpty {
                window.record(file, write: n, slot: s, recipes: recipes)
            }
            checkDone()
            return
        }
        if node.isIO { startIO() }
        if instances[id].cancelRequested {
            finishNode(id, as: .cancelled)
        } else if instances[id].timedOut {
            fail(id, with: SchedulerError.timedOut(node: plan.nodes[n].id, seconds: node.timeout ?? 0))
        } else {
            switch result {
            case .success(let payload):
                // Before anything downstream is made ready: what is up to date never starts.
                if let freshness = job.freshness, let s = slot(of: id) { leaveOut(freshness, slot: s) }
                succeed(id, with: payload)
            case .failure(let error): fail(id, with: error)
            }
        }
        checkDone()
    }

    private func succeed(_ id: Int, with payload: Payload) {
        let n = node(of: id)
        if case .file(let file) = payload {
            if let s = slot(of: id) {
                window.record(file, write: n, slot: s, recipes: recipes)
            } else {
                tally.bytes += runScope.wrote(file, node: n) // a run-scope file (e.g. a contact sheet) belongs to no item
            }
        }
        payloads[id] = Payloads()
        if plan.traits[n].isRun { runScope.succeeded(n, with: payload) }
        if kept.cache != nil { kept.keep(payload, node: n, item: item(of: id)) }
        let repeated = plan.omitsRepeats ? repeatReason(n, payload) : nil
        if plan.traits[n].deliversDownstream { deliverDownstream(payload, from: id, omittedBeyondCascade: repeated) }
        finishNode(id, as: .succeeded, message: repeated, payload: fanIns.feeds(n) ? payload : nil)
    }

    /// Why a copy's image is not to be made into anything but the smaller sizes made from it:
    /// it fits a smaller copy's box, so that copy comes out the same (`NodePlan.smallerCopies`).
    private func repeatReason(_ n: Int, _ payload: Payload) -> String? {
        let smaller = plan.nodes[n].spec.plan.smallerCopies
        guard !smaller.isEmpty, case .image(let image) = payload,
              let same = smaller.first(where: { $0.box.holds(width: image.width, height: image.height) }) else { return nil }
        return "the same image as \(same.id) (\(image.width)×\(image.height), inside both boxes)"
    }

    /// Hands a succeeded instance's payload to the instances that read it (fan-ins excepted:
    /// `settle` contributes to those) and makes ready those that now have every input. With
    /// `omittedBeyondCascade`, only the resizes the planner made from this one get the payload;
    /// every other reader gets it as `omitted`.
    func deliverDownstream(_ payload: Payload, from id: Int, omittedBeyondCascade: String? = nil) {
        let n = node(of: id)
        for d in plan.nodes[n].dependents {
            let dependent = plan.nodes[d]
            if dependent.scope == .run && plan.nodes[n].scope == .item { continue }
            let shared = plan.traits[d].sharesRunReferences
            var given = payload
            if let reason = omittedBeyondCascade, dependent.spec.plan.cascadedFrom != plan.nodes[n].spec.id { given = .omitted(reason) }
            for target in instancesOf(d, downstreamOf: id) where instances[target].state == .pending {
                for edge in dependent.inputs where edge.node == n && !edge.isFanIn {
                    if !(shared && edge.singleIndex >= 0) { payloads[target].receive(given, along: edge) }
                    instances[target].remaining -= 1
                }
                if instances[target].remaining == 0 { makeReady(target) }
            }
        }
    }

    private func fail(_ id: Int, with error: any Error) {
        let n = node(of: id)
        let node = plan.nodes[n]
        if let delay = node.spec.retry.delay(after: error, attempt: instances[id].attempt) {
            instances[id].end(as: .pending, waitingForRetry: true)
            let stamp = instances[id].stamp
            emitNode(id, .pending, message: String(format: "retrying in %.2f s after: ", delay) + String(describing: error))
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in self?.retryFired(id, stamp: stamp) }
            return
        }
        let message = String(describing: error)
        let blamed = (error as? any BlamingError)?.blamedNode ?? node.spec.id
        if let s = slot(of: id) { window.blame(s, node: blamed, message) }
        payloads[id] = Payloads()
        mark(id, .failed, message: message)
        if node.scope == .run {
            runScope.failures[n] = (node.spec.id, message)
            // Every item that needs it fails; later items are skipped as they are instantiated.
            // Items that never read it (a contact sheet's failure) go on.
            if plan.feedsItems(n) { window.blameEveryItem(node: node.spec.id, message) }
        }
        skipDownstream(of: id, cause: node.spec.id)
        settle(id)
        if (error as? any RunStoppingError)?.stopsRun == true {
            tally.stopReason = message
            stop(.stoppedByFailure)
        } else if options.failFast {
            stop(.failedFast)
        }
    }

    /// The instances of node `d` that read from instance `upstream`. Worked out here, not by a
    /// method of the window: a non-mutating call on a struct this class holds copies it first.
    func instancesOf(_ d: Int, downstreamOf upstream: Int) -> [Int] {
        switch (plan.nodes[node(of: upstream)].scope, plan.nodes[d].scope) {
        case (.item, _): return slot(of: upstream).map { plan.nodes[d].scope == .item ? [$0 * nodeCount + d] : [] } ?? []
        case (.run, .run): return [runInstance(d)]
        case (.run, .item): return window.occupied.map { $0 * nodeCount + d }
        }
    }

    /// Records a terminal state and settles it at once (for nodes with nothing left downstream).
    func finishNode(_ id: Int, as state: NodeState, message: String? = nil, payload: Payload? = nil) {
        mark(id, state, message: message)
        settle(id, payload: payload)
    }

    /// Sets a terminal state first, so cascades that reach the node again leave it alone.
    func mark(_ id: Int, _ state: NodeState, message: String? = nil) {
        instances[id].end(as: state)
        emitNode(id, state, message: message)
    }

    /// Feeds fan-ins and counts the node off its item, finishing the item after its last node.
    /// Called last, because finishing an item frees its slot for the next item.
    func settle(_ id: Int, payload: Payload? = nil) {
        let n = node(of: id)
        guard let s = slot(of: id) else { return }
        let state = instances[id].state
        if fanIns.feeds(n) {
            // An up-to-date write gives the run's fan-ins its file as recorded (an index of pages).
            contribute(state == .succeeded || state == .upToDate ? payload : nil, from: n, item: window.itemIndex(of: id))
        }
        if window.nodeEnded(s, cancelled: state == .cancelled) { finishItem(s) }
    }

    /// The node that read the item's input says which of its files are up to date: those
    /// `write`s, and every node that only feeds them, end as `upToDate` without running.
    func leaveOut(_ freshness: ItemFreshness, slot s: Int) {
        let (files, nodes) = recipes?.leftOut(freshness) ?? ([], [])
        window.leaveOut(s, identity: freshness.identity, upToDate: files)
        var recorded: [Int: OutputFile] = [:]
        for (writeID, file) in freshness.upToDate {
            if let n = recipes?.nodeIndex[writeID] { recorded[n] = file }
        }
        let left = Set(nodes)
        for n in nodes {
            let id = s * nodeCount + n
            guard instances[id].state == .pending || instances[id].state == .ready else { continue }
            // The reading node has not settled yet, so the item cannot end (and its slot be
            // reused) while these settle.
            mark(id, .upToDate)
            // A node that still runs though it reads an up-to-date `write` (a page's markup whose
            // own file changed) reads the file as recorded: it is there, as it was made.
            if let file = recorded[n], plan.nodes[n].dependents.contains(where: { !left.contains($0) && plan.nodes[$0].scope == .item }) {
                deliverDownstream(.file(file), from: id)
            }
            settle(id, payload: recorded[n].map { .file($0) })
        }
    }
}
