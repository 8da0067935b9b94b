/// Items entering and leaving the window, run-scope nodes, and fan-in.
extension RunScheduler {
    /// A feed has items (or closed): admit them.
    func itemsArrived() {
        lock.lock()
        if tally.isRunning { fillWindow(); checkDone() }
        unlockAndFlush()
    }

    /// Admits items until the window is full or the input list ends.
    func fillWindow() {
        // An item can end while it is set up (its shared input failed); the loop below, not a
        // nested call, then refills its slot, so the stack never grows with the list.
        guard !window.filling else { return }
        window.filling = true
        defer { window.filling = false }
        while !tally.stopping {
            switch window.admit(unfinished: itemNodes.count) {
            case .item(_, let s): instantiate(slot: s)
            case .full, .waiting: return
            case .listEnded(let justEnded):
                guard justEnded else { return }
                if let failure = window.listFailure() { tally.listFailed(failure) }
                inputsExhausted()
                return
            }
        }
    }

    /// Sets up the item just admitted to slot `s`: one instance per item node, fed what run
    /// scope has already made.
    private func instantiate(slot s: Int) {
        var blocked: [(Int, String)] = []
        // Made ready once every instance of the item is set up: one may take a kept result and
        // hand it on at once (`ResultCache`).
        var readyNow: [Int] = []
        for k in 0..<itemNodes.count {
            let n = itemNodes[k]
            let id = s * nodeCount + n
            let (instance, held, blockedBy) = runScope.instance(ofItemNode: n, plan: plan, states: instances, runBase: runInstance(0))
            instances[id] = instance
            payloads[id] = held
            fanIns.expect(from: n)
            for cause in blockedBy { blocked.append((id, cause)) }
            // A node ready at once reads only run-scope outputs, so nothing skipped below is upstream of it.
            if instance.remaining == 0 { readyNow.append(id) }
        }
        for (id, cause) in blocked where instances[id].state == .pending {
            let message = "skipped because \"\(cause)\" did not succeed"
            window.blame(s, node: plan.nodes[node(of: id)].spec.id, message)
            mark(id, .skipped, message: message)
            skipDownstream(of: id, cause: cause)
            settle(id)
        }
        claimOutputs(slot: s)
        for id in readyNow where instances[id].state == .pending { makeReady(id) }
        // A graph of run-scope nodes only: the item has nothing of its own to do.
        if itemNodes.count == 0 { finishItem(s) }
    }

    /// A write whose path an earlier item holds fails before anything of it runs, and what
    /// only fed it is cancelled (`RunPlan.claimWrites`).
    private func claimOutputs(slot s: Int) {
        guard let item = window.slots[s].item else { return }
        for (n, message) in plan.claimWrites(of: item, in: shared.output, pending: { instances[s * nodeCount + $0].state == .pending }) {
            let id = s * nodeCount + n
            window.blame(s, node: plan.nodes[n].id, message)
            mark(id, .failed, message: message)
            skipDownstream(of: id, cause: plan.nodes[n].id)
            releaseUpstream(of: id)
            settle(id)
        }
    }

    /// The input list has ended: fan-ins waiting only for the list can complete.
    private func inputsExhausted() {
        for (n, e) in plan.fanInEdges where fanIns.isComplete(fanIns.slot(node: n, edge: e), listEnded: true) {
            satisfyFanIn(runInstance(n), edge: e)
        }
    }

    /// An item's node `u` ended: its output (if it succeeded) goes to the fan-ins it feeds.
    func contribute(_ payload: Payload?, from u: Int, item: Int) {
        var completed: [(node: Int, edge: Int)] = []
        fanIns.contribute(payload, from: u, item: item, listEnded: window.exhausted,
                          isClosed: { instances[runInstance($0)].state.isTerminal },
                          completed: { completed.append(($0.node, $0.edge)) })
        for target in completed { satisfyFanIn(runInstance(target.node), edge: target.edge) }
    }

    private func satisfyFanIn(_ id: Int, edge: Int) {
        let n = node(of: id)
        guard instances[id].state == .pending, case .reference(let name, true) = plan.nodes[n].inputs[edge].slot else { return }
        payloads[id].lists[name] = fanIns.gather(fanIns.slot(node: n, edge: edge))
        instances[id].remaining -= 1
        if instances[id].remaining == 0 { makeReady(id) }
    }

    /// Every node of the item in slot `s` has ended: report it and make room for the next item.
    func finishItem(_ s: Int) {
        guard let item = window.slots[s].item else { return }
        // Read in place, not copied: a copy would keep the files array alive and make `release`
        // allocate a new one for every item.
        let status = window.slots[s].status
        tally.count(status, bytes: window.slots[s].bytes)
        events.itemFinished(window.slots[s], as: status, time: now, notes: shared.takeNotes(of: item.index))
        window.release(s)
        // Instances keep their terminal state until the next item overwrites them (no stale heap
        // entry can match a terminal instance); payloads are let go now.
        for k in 0..<itemNodes.count where !payloads[s * nodeCount + itemNodes[k]].isEmpty {
            payloads[s * nodeCount + itemNodes[k]] = Payloads()
        }
        if status == .failed && options.failFast { stop(.failedFast) }
        fillWindow()
    }
}
