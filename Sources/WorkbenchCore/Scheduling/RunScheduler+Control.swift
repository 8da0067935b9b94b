/// What a caller can do to a running run: stop it, cancel an item, suspend, resume, prioritize.
extension RunScheduler {
    /// Stops the whole run. Waiting work is dropped in bulk (the ready heaps are swapped out, no
    /// node is visited under the lock); running bodies are told to stop and are then waited for.
    func stop(_ why: RunSummary.Ending) {
        guard tally.stop(why) else { return }
        _ = ready.dropAll()
        // Bodies already handed out (including I/O jobs not yet begun) see their token and do not start.
        inFlight.cancelAll()
        lock.broadcast()
        seat?.reset(to: -1)
        checkDone()
    }

    func cancel(_ why: RunSummary.Ending = .interrupted) {
        lock.lock()
        stop(why)
        unlockAndFlush()
    }

    /// Cancels every unfinished node of the item with this index, if it is in the window.
    func cancelItem(_ index: Int) {
        lock.lock()
        if tally.isRunning, let s = window.slot(holding: index) {
            window.markCancelled(s)
            for n in plan.itemNodes {
                let id = s * nodeCount + n
                // Cancelling a node can end the item, and the next item take its slot.
                if window.itemIndex(of: id) == index && !instances[id].state.isTerminal { cancelNode(id, reason: "the item was cancelled") }
            }
            checkDone()
        }
        unlockAndFlush()
    }

    func setSuspended(_ suspended: Bool, queue name: String?) {
        lock.lock()
        ready.setSuspended(suspended, queues: name.map { name in plan.queues.indices.filter { plan.queues[$0].name == name } })
        if !suspended {
            startIO()
            lock.broadcast()
        }
        refreshCPUHint()
        unlockAndFlush()
    }

    /// Sets the QoS of the item's unfinished nodes to `qos`, raising or lowering them, and
    /// raises the shared nodes they read (never lowered: other items need them too); ready
    /// ones are re-filed under the new priority at once.
    func prioritize(item index: Int, to qos: QoS) {
        lock.lock()
        if let s = window.slot(holding: index) {
            let targets = plan.itemNodes.map { s * nodeCount + $0 } + plan.runInputsOfItems.map(runInstance)
            for id in targets where !instances[id].state.isTerminal && instances[id].qos != qos.rank {
                // A run-scope node (no slot) is only ever raised.
                if slot(of: id) == nil && instances[id].qos > qos.rank { continue }
                instances[id].qos = qos.rank
                if instances[id].state == .ready {
                    instances[id].version = ready.nextVersion()
                    push(id)
                }
            }
        }
        unlockAndFlush()
    }
}
