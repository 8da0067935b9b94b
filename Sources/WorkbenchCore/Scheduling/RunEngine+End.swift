/// The end of a run: deciding that nothing more can happen, the summary, and reporting what a
/// stop left in the window.
extension RunEngine {
    /// Ends the run once nothing can happen any more.
    func checkDone() {
        guard !tally.isFinished else { return }
        if stopping {
            guard inFlight.isEmpty else { return }
            tally.leftovers = (window.takeAll(), instances)
            instances = []
        } else {
            guard window.exhausted && window.live == 0 else { return }
            // Shared work nobody is left to use is cancelled.
            for n in plan.runNodes where !instances[runInstance(n)].state.isTerminal {
                if !plan.nodes[n].isSink && plan.nodes[n].dependents.allSatisfy({ instances[runInstance($0)].state.isTerminal || plan.nodes[$0].scope == .item }) {
                    cancelNode(runInstance(n), reason: "no item needs it any more")
                }
            }
            guard plan.runNodes.allSatisfy({ instances[runInstance($0)].state.isTerminal }) else { return }
        }
        _ = tally.finish(items: window.admitted, duration: now, runNodes: runNodeReports())
        lock.broadcast()
        lock.announceEnd()
    }

    /// The run-scope nodes whose outcome a user must see: files written, failures and skips.
    private func runNodeReports() -> [RunNodeReport] {
        let states = tally.leftovers?.instances ?? instances
        return plan.runNodes.compactMap { n in
            let id = runInstance(n)
            let state = id < states.count ? states[id].state : .cancelled
            if let file = runScope.files[n] {
                return RunNodeReport(node: plan.nodes[n].spec.id, state: state, output: file.path, bytesWritten: file.bytes)
            }
            guard state == .failed || state == .skipped else { return nil }
            return RunNodeReport(node: plan.nodes[n].spec.id, state: state, failure: runScope.failures[n])
        }
    }

    /// After a stop: the items and nodes left in the window end as cancelled. Runs outside the lock,
    /// once no other thread touches the run, so a stop never walks nodes while holding it.
    func reportLeftovers(_ rest: (slots: [ItemWindow.Slot], instances: [NodeInstance])) {
        events.leftovers(rest, runBase: runInstance(0), time: now, notes: shared.takeNotes(of:))
    }
}
