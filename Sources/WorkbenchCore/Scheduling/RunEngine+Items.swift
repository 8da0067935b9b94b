/// Items entering and leaving the window, run-scope nodes, and fan-in.
extension RunEngine {
    func setUpRunNode(_ n: Int) {
        let node = plan.nodes[n]
        var instance = NodeInstance()
        instance.qos = node.qos
        instance.remaining = node.inputs.count
        // Run-scope nodes that items read from are needed as long as items may come.
        instance.waiters = node.outEdges
        instances[runInstance(n)] = instance
        payloads[runInstance(n)] = Payloads(from: node.fromCount, references: node.singleReferenceNames.count)
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
            case .full: return
            case .listEnded(let justEnded):
                guard justEnded else { return }
                if let failure = window.listFailure() {
                    // The items taken so far run to their end; the run then ends failed, saying why.
                    tally.ending = .stoppedByFailure
                    tally.stopReason = failure
                }
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
            let node = plan.traits[n]
            var instance = NodeInstance()
            instance.qos = node.qos
            instance.remaining = node.inputCount
            instance.waiters = node.outEdges
            var held = Payloads(from: node.fromCount, references: node.sharesRunReferences ? 0 : node.referenceCount)
            if node.sharesRunReferences {
                // Nothing to deliver per item: only count the run-scope inputs that are done.
                let range = runScope.inputRanges[n]
                for r in range.start..<range.end {
                    let u = runScope.inputs[r]
                    switch instances[runInstance(u)].state {
                    case .succeeded: instance.remaining -= 1
                    case .failed, .cancelled, .skipped: blocked.append((id, plan.nodes[u].spec.id))
                    default: break
                    }
                }
            } else if node.readsRunScope {
                for edge in plan.nodes[n].inputs where edge.fromRunScope {
                    switch instances[runInstance(edge.node)].state {
                    case .succeeded:
                        if let payload = runScope.outputs[edge.node] { deliver(payload, to: &held, edge: edge) }
                        instance.remaining -= 1
                    case .failed, .cancelled, .skipped:
                        blocked.append((id, plan.nodes[edge.node].spec.id))
                    default:
                        break
                    }
                }
            }
            instances[id] = instance
            payloads[id] = held
            fanIns.expect(from: n)
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

    /// Claims the paths of the item's `write`s now, in input order, whether or not they will
    /// run (an item found up to date keeps its files from a later item): a write whose path an
    /// earlier item has fails before anything of it runs, and what only fed it is cancelled.
    private func claimOutputs(slot s: Int) {
        guard let item = window.slots[s].item else { return }
        for (n, stage) in plan.writes where plan.nodes[n].scope == .item {
            let id = s * nodeCount + n
            guard instances[id].state == .pending else { continue }
            do {
                try shared.output.reserve(try stage.destination(for: item, runFileSuffix: nil), node: plan.nodes[n].id, for: item)
            } catch {
                let message = String(describing: error)
                window.blame(s, node: plan.nodes[n].id, message)
                mark(id, .failed, message: message)
                skipDownstream(of: id, cause: plan.nodes[n].id)
                releaseUpstream(of: id)
                settle(id)
            }
        }
    }

    /// Run-scope files (a contact sheet) are claimed before any item: an item naming one fails.
    func claimRunOutputs() {
        for (n, stage) in plan.writes where plan.nodes[n].scope == .run {
            // A clash between two run-scope writes is reported when the second one runs.
            if let path = try? stage.destination(for: .run, runFileSuffix: shared.runFileSuffix) {
                // As above: that clash is reported when the write runs, with both nodes named.
                try? shared.output.reserve(path, node: plan.nodes[n].id, for: .run)
            }
        }
    }

    func deliver(_ payload: Payload, to held: inout Payloads, edge: RunPlan.Edge) {
        switch edge.slot {
        case .from(let i): held.from[i] = payload
        case .reference(_, false): held.references[edge.singleIndex] = payload
        case .reference: break
        }
    }

    /// The input list has ended: fan-ins waiting only for the list can complete.
    private func inputsExhausted() {
        for n in plan.runNodes {
            for (e, edge) in plan.nodes[n].inputs.enumerated()
            where edge.isFanIn && fanIns.isComplete(fanIns.slot(node: n, edge: e), listEnded: true) {
                satisfyFanIn(runInstance(n), edge: e)
            }
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
