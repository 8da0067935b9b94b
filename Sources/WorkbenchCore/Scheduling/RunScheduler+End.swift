/// The end of a run: deciding that nothing more can happen, and the summary.
extension RunScheduler {
    /// Ends the run once nothing can happen any more.
    func checkDone() {
        guard !tally.isFinished else { return }
        if tally.stopping {
            guard inFlight.isEmpty else { return }
            tally.leftovers = (window.takeAll(), instances)
            instances = []
        } else {
            guard window.exhausted && window.live == 0 else { return }
            // Shared work nobody is left to use is cancelled.
            for n in plan.runNodesNeededByNobody(isEnded: { instances[runInstance($0)].state.isTerminal }) {
                cancelNode(runInstance(n), reason: "no item needs it any more")
            }
            guard plan.runNodes.allSatisfy({ instances[runInstance($0)].state.isTerminal }) else { return }
        }
        let states = tally.leftovers?.instances ?? instances
        let reports = runScope.reports(plan) { n in runInstance(n) < states.count ? states[runInstance(n)].state : .cancelled }
        _ = tally.finish(items: window.admitted, duration: now, runNodes: reports)
        lock.broadcast()
        lock.announceEnd()
        seat?.pool.detach(self)
    }
}
