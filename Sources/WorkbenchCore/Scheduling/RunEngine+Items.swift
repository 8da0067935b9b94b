/// Instantiating items into the window, run-scope nodes, fan-in, and the end of items.
extension RunEngine {
    func setUpRunNode(_ n: Int) {
        let id = runInstance(n)
        let node = plan.nodes[n]
        var instance = Instance()
        instance.qos = node.qos
        instance.remaining = node.inputs.count
        // Run-scope nodes that items read from are needed as long as items may come.
        instance.waiters = node.outEdges
        instances[id] = instance
        payloads[id] = Payloads(from: node.fromCount, references: node.singleReferenceNames.count)
    }

    /// Instantiates items until the window is full or the input list ends.
    func fillWindow() {
        // An item can end while it is set up (its shared input failed); the loop below, not a
        // nested call, then refills its slot, so the stack never grows with the list.
        guard !filling else { return }
        filling = true
        defer { filling = false }
        while !stopping, let s = freeSlots.last {
            guard let item = iterator.next() else {
                if !exhausted {
                    exhausted = true
                    inputsExhausted()
                }
                return
            }
            freeSlots.removeLast()
            instantiate(item, in: s)
        }
    }

    private func instantiate(_ item: Item, in s: Int) {
        // Field by field: the slot was cleared when its last item finished.
        slots[s].item = item
        slots[s].itemIndex = item.index
        slots[s].unfinished = itemNodes.count
        liveItems += 1
        itemsStarted += 1
        var blocked: [(Int, String)] = []
        // Made ready once every instance of the item is set up: one may take a kept result and
        // hand it on at once (`ResultCache`).
        var ready: [Int] = []
        for k in 0..<itemNodes.count {
            let n = itemNodes[k]
            let id = s * nodeCount + n
            let node = plan.traits[n]
            var instance = Instance()
            instance.qos = node.qos
            instance.remaining = node.inputCount
            instance.waiters = node.outEdges
            var held = Payloads(from: node.fromCount, references: node.sharesRunReferences ? 0 : node.referenceCount)
            if node.sharesRunReferences {
                // Nothing to deliver per item: only count the run-scope inputs that are done.
                let range = runInputRanges[n]
                for r in range.start..<range.end {
                    let u = runInputs[r]
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
                        if let payload = runOutputs[edge.node] { deliver(payload, to: &held, edge: edge) }
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
            let fanIns = fanInRanges[n]
            for t in fanIns.start..<fanIns.end { fanInOpen[fanInTargets[t].slot] += 1 }
            // A node ready at once reads only run-scope outputs, so nothing skipped below is upstream of it.
            if instance.remaining == 0 { ready.append(id) }
        }
        for (id, cause) in blocked where instances[id].state == .pending {
            let message = "skipped because \"\(cause)\" did not succeed"
            slots[s].failure = slots[s].failure ?? (plan.nodes[node(of: id)].spec.id, message)
            mark(id, .skipped, message: message)
            skipDownstream(of: id, cause: cause)
            settle(id)
        }
        for id in ready where instances[id].state == .pending { makeReady(id) }
        // A graph of run-scope nodes only: the item has nothing of its own to do.
        if itemNodes.count == 0 { finishItem(s) }
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
            let id = runInstance(n)
            for (e, edge) in plan.nodes[n].inputs.enumerated() where edge.isFanIn && fanInOpen[fanInSlot[n][e]] == 0 {
                satisfyFanIn(id, edge: e)
            }
        }
    }

    /// An item's contribution to a fan-in ended (with a payload if it succeeded).
    func contribute(_ payload: Payload?, from u: Int, item: Int) {
        let range = fanInRanges[u]
        for t in range.start..<range.end {
            let target = fanInTargets[t]
            let id = runInstance(target.node)
            guard !instances[id].state.isTerminal else { continue }
            if let payload { fanInEntries[target.slot].append(FanInEntry(item: item, payload: payload)) }
            fanInOpen[target.slot] -= 1
            if exhausted && fanInOpen[target.slot] == 0 { satisfyFanIn(id, edge: target.edge) }
        }
    }

    private func satisfyFanIn(_ id: Int, edge: Int) {
        guard instances[id].state == .pending,
              case .reference(let name, true) = plan.nodes[node(of: id)].inputs[edge].slot else { return }
        let slot = fanInSlot[node(of: id)][edge]
        var entries = fanInEntries[slot]
        fanInEntries[slot] = []
        // Items mostly end in order; sort only when they did not.
        if entries.indices.dropFirst().contains(where: { entries[$0 - 1].item > entries[$0].item }) {
            entries.sort { $0.item < $1.item }
        }
        payloads[id].lists[name] = entries.map(\.payload)
        instances[id].remaining -= 1
        if instances[id].remaining == 0 { makeReady(id) }
    }

    /// Every node of the item in slot `s` has ended: report it and make room for the next item.
    func finishItem(_ s: Int) {
        guard slots[s].itemIndex >= 0 else { return }
        var status: ItemReport.Status = slots[s].failure != nil ? .failed : slots[s].cancelled ? .cancelled : .succeeded
        if status == .succeeded && slots[s].files.isEmpty && !slots[s].upToDate.isEmpty { status = .upToDate }
        switch status {
        case .succeeded: counts.succeeded += 1
        case .failed: counts.failed += 1
        case .cancelled: counts.cancelled += 1
        case .upToDate: counts.upToDate += 1
        }
        counts.bytes += slots[s].bytes
        if itemEvents, let item = slots[s].item {
            events?.yield(.itemFinished(ItemReport(
                item: item, status: status, files: inGraphOrder(slots[s].files), upToDate: inGraphOrder(slots[s].upToDate), bytesWritten: slots[s].bytes,
                failure: slots[s].failure, duration: slots[s].started.map { now - $0 } ?? 0,
                warnings: shared.takeWarnings(of: item.index), identity: slots[s].identity)))
        } else if let item = slots[s].item {
            _ = shared.takeWarnings(of: item.index)
        }
        slots[s].item = nil
        slots[s].itemIndex = -1
        slots[s].failure = nil
        if !slots[s].files.isEmpty { slots[s].files.removeAll(keepingCapacity: true) }
        if !slots[s].upToDate.isEmpty { slots[s].upToDate.removeAll() }
        slots[s].identity = nil
        slots[s].bytes = 0
        slots[s].cancelled = false
        slots[s].started = nil
        // Instances keep their terminal state until the next item overwrites them (no stale heap
        // entry can match a terminal instance); payloads are let go now.
        for k in 0..<itemNodes.count where !payloads[s * nodeCount + itemNodes[k]].isEmpty {
            payloads[s * nodeCount + itemNodes[k]] = Payloads()
        }
        liveItems -= 1
        freeSlots.append(s)
        if status == .failed && options.failFast { stop(.failedFast) }
        fillWindow()
    }

    /// Ends the run once nothing can happen any more.
    func checkDone() {
        guard !finished else { return }
        if stopping {
            guard running.isEmpty else { return }
            leftovers = (slots, instances)
            slots = []
            instances = []
        } else {
            guard exhausted && liveItems == 0 else { return }
            // Shared work nobody is left to use is cancelled.
            for n in plan.runNodes where !instances[runInstance(n)].state.isTerminal {
                let id = runInstance(n)
                if !plan.nodes[n].isSink && plan.nodes[n].dependents.allSatisfy({ instances[runInstance($0)].state.isTerminal || plan.nodes[$0].scope == .item }) {
                    cancelNode(id, reason: "no item needs it any more")
                }
            }
            guard plan.runNodes.allSatisfy({ instances[runInstance($0)].state.isTerminal }) else { return }
        }
        finished = true
        let left = leftovers?.slots.filter { $0.item != nil } ?? []
        let leftFailed = left.filter { $0.failure != nil }.count
        summary = RunSummary(
            items: itemsStarted, succeeded: counts.succeeded, failed: counts.failed + leftFailed,
            cancelled: counts.cancelled + left.count - leftFailed, upToDate: counts.upToDate,
            nodesRun: counts.nodesRun, bytesWritten: counts.bytes + (leftovers?.slots.reduce(0) { $0 + $1.bytes } ?? 0),
            duration: now, ending: ending, runNodes: runNodeReports(), stopReason: stopReason)
        lock.broadcast()
        lock.announceEnd()
    }

    /// The run-scope nodes whose outcome a user must see: files written, failures and skips.
    private func runNodeReports() -> [RunNodeReport] {
        let states = leftovers?.instances ?? instances
        return plan.runNodes.compactMap { n in
            let id = window * nodeCount + n
            let state = id < states.count ? states[id].state : .cancelled
            if let file = runFiles[n] {
                return RunNodeReport(node: plan.nodes[n].spec.id, state: state, output: file.path, bytesWritten: file.bytes)
            }
            guard state == .failed || state == .skipped else { return nil }
            return RunNodeReport(node: plan.nodes[n].spec.id, state: state, failure: runFailures[n])
        }
    }

    /// After a stop: the items and nodes left in the window end as cancelled. Runs outside the lock,
    /// once no other thread touches the run, so a stop never walks nodes while holding it.
    func reportLeftovers(_ rest: (slots: [Slot], instances: [Instance])) {
        guard let events, options.eventDetail != .none else { return }
        let time = now
        for (s, slot) in rest.slots.enumerated() {
            guard let item = slot.item else { continue }
            if options.eventDetail == .nodes {
                for n in plan.itemNodes where !rest.instances[s * nodeCount + n].state.isTerminal {
                    events.yield(.node(NodeEvent(item: item, node: plan.nodes[n].spec.id, queue: plan.nodes[n].spec.queue,
                                                 state: .cancelled, time: time, attempt: max(1, rest.instances[s * nodeCount + n].attempt),
                                                 message: nil)))
                }
            }
            let status: ItemReport.Status = slot.failure != nil ? .failed : .cancelled
            events.yield(.itemFinished(ItemReport(item: item, status: status, files: inGraphOrder(slot.files), upToDate: inGraphOrder(slot.upToDate),
                                                  bytesWritten: slot.bytes, failure: slot.failure,
                                                  duration: slot.started.map { time - $0 } ?? 0,
                                                  warnings: shared.takeWarnings(of: item.index), identity: slot.identity)))
        }
        if options.eventDetail == .nodes {
            for n in plan.runNodes where !rest.instances[window * nodeCount + n].state.isTerminal {
                events.yield(.node(NodeEvent(item: .run, node: plan.nodes[n].spec.id, queue: plan.nodes[n].spec.queue,
                                             state: .cancelled, time: time, attempt: 1, message: nil)))
            }
        }
    }

    /// An item's files in the order of the preset's `write` nodes, not the order they finished in,
    /// so the line for an item and its report read the same on every run.
    func inGraphOrder(_ files: [OutputFile]) -> [OutputFile] {
        guard files.count > 1 else { return files }
        let order = Dictionary(plan.nodes.indices.map { (plan.nodes[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
        return files.sorted { (order[$0.node] ?? .max, $0.path) < (order[$1.node] ?? .max, $1.path) }
    }
}
