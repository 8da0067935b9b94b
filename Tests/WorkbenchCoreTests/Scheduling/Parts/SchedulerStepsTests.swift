import Testing
@testable import WorkbenchCore

/// The parts that carry the engine's steps: the downstream walk, who is woken for new work,
/// how the tally stops and hands out its end, and what the window records of an item.
@Suite struct SchedulerStepsTests {
    /// 0 → 1 → 3, 0 → 2 → 3: each instance is entered when reached and left after everything
    /// below it, as a recursive walk would; a node already entered is walked past.
    @Test func theDownstreamWalkEntersAndLeavesInARecursiveWalksOrder() {
        let dependents = [[1, 2], [3], [3], []]
        var entered: [Int] = [], left: [String] = []
        DownstreamWalk.walk(from: 0, node: 0, dependents: { dependents[$0] }, targets: { d, _ in [d] }, enter: { target, _ in
            guard !entered.contains(target) else { return nil }
            entered.append(target)
            return target
        }, leave: { id, parent in left.append("\(id)<\(parent)") })
        #expect(entered == [1, 3, 2])
        #expect(left == ["3<1", "1<0", "2<0"])
    }

    /// A chain of a million is walked on the walk's own stack, not the call stack.
    @Test func aMillionDeepChainIsWalked() {
        let n = 1_000_000
        var left = 0
        DownstreamWalk.walk(from: 0, node: 0, dependents: { $0 + 1 < n ? [$0 + 1] : [] }, targets: { d, _ in [d] },
                            enter: { target, _ in target }, leave: { _, _ in left += 1 })
        #expect(left == n - 1)
    }

    @Test func theWorkerEndingItsBatchTakesTheFirstWorkItMakes() {
        var wakeups = Wakeups()
        let nobodyAsleep = wakeups.wakesOne()
        wakeups.idle = 1
        wakeups.endingWorkerTakesOne = true
        let first = wakeups.wakesOne(), second = wakeups.wakesOne()
        #expect(!nobodyAsleep && !first && second, "the first is the ending worker's, the next wakes the sleeper")
    }

    @Test func aTallyStopsOnceAndHandsItsEndOutOnce() {
        var tally = Tally()
        let running = tally.isRunning, stops = tally.stop(.interrupted), stopsAgain = tally.stop(.failedFast)
        #expect(running && stops && !stopsAgain)
        #expect(!tally.isRunning && tally.ending == .interrupted)
        let early = tally.takeEnd()
        _ = tally.finish(items: 0, duration: 0, runNodes: [])
        let end = tally.takeEnd()
        #expect(early == nil && end?.summary.ending == .interrupted)
        #expect(tally.summaryOrEmpty.ending == .interrupted)
    }

    @Test func theWindowBlamesAnItemsFirstFailureAndCountsItsNodesOff() {
        var window = ItemWindow(capacity: 2, nodeCount: 3, items: .generated(count: 1) { Item(index: $0, name: "a", source: "/a") })
        guard case .item(_, let s) = window.admit(unfinished: 2) else { Issue.record("no item admitted"); return }
        window.blame(s, node: "decode", "damaged")
        window.blame(s, node: "write", "skipped because \"decode\" did not succeed")
        window.record(OutputFile(path: "/out/a.jpg", node: "write", bytes: 7), write: 2, slot: s, recipes: nil)
        let firstEnds = window.nodeEnded(s, cancelled: false), lastEnds = window.nodeEnded(s, cancelled: true)
        #expect(!firstEnds && lastEnds)
        #expect(window.slots[s].failure?.node == "decode" && window.slots[s].bytes == 7 && window.slots[s].status == .failed)
    }
}
