/// How an end spreads: what a failed or cancelled instance skips downstream, inputs nobody needs
/// any more, cancelling, and the timers (timeouts, retries) that come back later. Every function
/// here runs with the lock held, except the timers' entry points, which take it.
extension RunEngine {
    /// Marks everything downstream of a node that did not succeed; those nodes' other inputs may
    /// then be needed by nobody.
    ///
    /// A depth-first walk on a stack of its own, not the call stack: a chain of a million nodes
    /// is a million levels deep. Each node is marked when the walk reaches it, and releases its
    /// inputs and settles once everything below it is marked, in the order a recursive walk
    /// would (settling may finish the item, so it comes last).
    func skipDownstream(of id: Int, cause: String, as state: NodeState = .skipped) {
        struct Frame {
            let id: Int
            let node: Int
            var dependent = 0
            var targets: [Int] = []
            var target = 0
        }
        var stack = [Frame(id: id, node: node(of: id))]
        while let top = stack.last {
            if top.target < top.targets.count {
                let target = top.targets[top.target]
                stack[stack.count - 1].target += 1
                guard instances[target].state == .pending || instances[target].state == .ready else { continue }
                let n = top.node, d = node(of: target)
                let message = state == .skipped ? "skipped because \"\(cause)\" did not succeed" : nil
                if let s = slot(of: target), state == .skipped {
                    window.blame(s, node: plan.nodes[n].spec.id, "skipped because \"\(cause)\" did not succeed")
                } else if plan.nodes[d].scope == .run, state == .skipped, let root = runScope.failures[n] {
                    runScope.failures[d] = root
                }
                mark(target, state, message: message)
                stack.append(Frame(id: target, node: d))
                continue
            }
            let dependents = plan.nodes[top.node].dependents
            if top.dependent < dependents.count {
                let d = dependents[top.dependent]
                stack[stack.count - 1].dependent += 1
                // A fan-in leaves the item out.
                let skipsFanIn = plan.nodes[d].scope == .run && plan.nodes[top.node].scope == .item
                stack[stack.count - 1].targets = skipsFanIn ? [] : instancesOf(d, downstreamOf: top.id)
                stack[stack.count - 1].target = 0
                continue
            }
            stack.removeLast()
            guard let parent = stack.last else { break }
            releaseUpstream(of: top.id, except: parent.node)
            settle(top.id)
        }
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
        switch instances[id].state {
        case .pending, .ready:
            mark(id, .cancelled, message: reason)
            skipDownstream(of: id, cause: plan.nodes[node(of: id)].spec.id, as: .cancelled)
            releaseUpstream(of: id)
            settle(id)
        case .running:
            guard !instances[id].cancelRequested else { return }
            instances[id].cancelRequested = true
            inFlight.cancel(id)
            skipDownstream(of: id, cause: plan.nodes[node(of: id)].spec.id, as: .cancelled)
            releaseUpstream(of: id)
        default:
            break
        }
    }

    func timeoutFired(_ id: Int, stamp: Int) {
        lock.lock()
        if !tally.isFinished, !tally.stopping, instances[id].state == .running, instances[id].stamp == stamp {
            instances[id].timedOut = true
            inFlight.cancel(id)
        }
        lock.unlock()
    }

    func retryFired(_ id: Int, stamp: Int) {
        lock.lock()
        ready.recentNow = now
        if !tally.isFinished, !tally.stopping, instances[id].state == .pending, instances[id].waitingForRetry,
           instances[id].stamp == stamp {
            makeReady(id)
        }
        unlockAndFlush()
    }
}
