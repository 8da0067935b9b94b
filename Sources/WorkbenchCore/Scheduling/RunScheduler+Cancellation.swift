/// How an end spreads: what a failed or cancelled instance skips downstream, inputs nobody needs
/// any more, cancelling, and the timers (timeouts, retries) that come back later. Every function
/// here runs with the lock held, except the timers' entry points, which take it.
extension RunScheduler {
    /// Marks everything downstream of a node that did not succeed (`DownstreamWalk`); those
    /// nodes' other inputs may then be needed by nobody.
    func skipDownstream(of id: Int, cause: String, as state: NodeState = .skipped) {
        let message = state == .skipped ? "skipped because \"\(cause)\" did not succeed" : nil
        DownstreamWalk.walk(from: id, node: node(of: id), dependents: { plan.nodes[$0].dependents }, targets: { d, upstream in
            // A fan-in leaves the item out.
            plan.nodes[d].scope == .run && plan.nodes[node(of: upstream)].scope == .item ? [] : instancesOf(d, downstreamOf: upstream)
        }, enter: { target, n in
            guard instances[target].state == .pending || instances[target].state == .ready else { return nil }
            let d = node(of: target)
            if let s = slot(of: target), let message {
                window.blame(s, node: plan.nodes[n].spec.id, message)
            } else if plan.nodes[d].scope == .run, state == .skipped, let root = runScope.failures[n] {
                runScope.failures[d] = root
            }
            mark(target, state, message: message)
            return d
        }, leave: { done, parent in
            releaseUpstream(of: done, except: parent)
            settle(done)
        })
    }

    /// `id` will never read its inputs: each upstream loses a waiter, and one nobody needs is cancelled.
    func releaseUpstream(of id: Int, except skipped: Int? = nil) {
        let n = node(of: id)
        for edge in plan.nodes[n].inputs where edge.node != skipped && !edge.isFanIn {
            let upstream = plan.nodes[edge.node].scope == .run ? runInstance(edge.node) : id - n + edge.node
            guard !instances[upstream].state.isTerminal else { continue }
            instances[upstream].waiters -= 1
            // A run-scope node that items read stays while more items may come (checkDone decides).
            if instances[upstream].waiters <= 0 && !plan.nodes[edge.node].isSink && plan.nodes[edge.node].scope == .item {
                cancelNode(upstream, reason: "nothing downstream needs it")
            }
        }
    }

    /// Cancels one node instance and, through the rules above, what depends on it.
    func cancelNode(_ id: Int, reason: String) {
        let state = instances[id].state
        // A running body is told to stop; it settles when it returns (`endBody`).
        if state == .running && !instances[id].cancelRequested {
            instances[id].cancelRequested = true
            inFlight.cancel(id)
        } else if state == .pending || state == .ready {
            mark(id, .cancelled, message: reason)
        } else {
            return
        }
        skipDownstream(of: id, cause: plan.nodes[node(of: id)].spec.id, as: .cancelled)
        releaseUpstream(of: id)
        if state != .running { settle(id) }
    }

    func timeoutFired(_ id: Int, stamp: Int) {
        lock.lock()
        if tally.isRunning, instances[id].state == .running, instances[id].stamp == stamp {
            instances[id].timedOut = true
            inFlight.cancel(id)
        }
        lock.unlock()
    }

    func retryFired(_ id: Int, stamp: Int) {
        lock.lock()
        ready.recentNow = now
        if tally.isRunning, instances[id].state == .pending, instances[id].waitingForRetry,
           instances[id].stamp == stamp {
            makeReady(id)
        }
        unlockAndFlush()
    }
}
