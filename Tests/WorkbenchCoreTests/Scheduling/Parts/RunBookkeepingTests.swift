import Testing
@testable import WorkbenchCore

/// The engine's smaller parts: bodies in flight, kept results, run scope and the tally.
@Suite struct RunBookkeepingTests {
    @Test func bodiesInFlightEndInAnyOrderAndReuseOnlyUncancelledTokens() {
        var bodies = BodiesInFlight(instances: 5)
        let a = bodies.begin(0), b = bodies.begin(3), c = bodies.begin(4)
        #expect((a.stamp, b.stamp, c.stamp) == (1, 2, 3) && bodies.running == [0, 3, 4])
        bodies.cancel(3)
        #expect(b.token.isCancelled && !a.token.isCancelled)
        bodies.end(0)
        #expect(Set(bodies.running) == [3, 4])
        bodies.end(3)
        bodies.end(4)
        #expect(bodies.isEmpty)
        // A's and c's tokens were clean and are handed out again; b's was cancelled and is not.
        let next = bodies.begin(1), after = bodies.begin(2)
        #expect([next.token, after.token].allSatisfy { $0 === a.token || $0 === c.token })
        bodies.cancelAll()
        #expect(next.token.isCancelled && after.token.isCancelled)
        bodies.end(1, recyclesToken: false)
        #expect(bodies.running == [2])
    }

    @Test func keptResultsAreHandedOnByTheFirstTakerInTheOrderTheyCame() {
        var kept = KeptResults(cache: nil, keys: nil)
        let payload = Payload.file(OutputFile(path: "/x", node: "w", bytes: 0))
        let firstTakes = kept.add(1, payload)
        // Taking 1 makes 2 and 3 ready: they queue behind it instead of being taken by recursion.
        let taken = kept.take()?.instance
        let secondTakes = kept.add(2, payload), thirdTakes = kept.add(3, payload)
        let rest = [kept.take()?.instance, kept.take()?.instance, kept.take()?.instance]
        let nextRoundTakes = kept.add(4, payload)
        #expect(firstTakes && taken == 1 && !secondTakes && !thirdTakes && nextRoundTakes)
        #expect(rest == [2, 3, nil])
    }

    @Test func sharedReferencesAreBuiltOnceFromRunScopeOutputs() {
        // Node 2 reads run-scope nodes 0 (reference slot 1) and 1 (reference slot 0).
        var scope = RunScope(runInputs: [[], [], [0, 1]], references: [[], [], [(1, 0), (0, 1)]], referenceCounts: [0, 0, 2])
        #expect(scope.inputRanges[2].end - scope.inputRanges[2].start == 2)
        scope.succeeded(0, with: .file(OutputFile(path: "/logo.png", node: "logo", bytes: 1)))
        scope.succeeded(1, with: .file(OutputFile(path: "/font.png", node: "font", bytes: 1)))
        let references = scope.references(of: 2)
        guard case .file(let first)? = references[0], case .file(let second)? = references[1] else {
            Issue.record("both references expected")
            return
        }
        #expect(first.path == "/font.png" && second.path == "/logo.png")
        // Built once: a later output does not change what items already share.
        scope.succeeded(0, with: .file(OutputFile(path: "/other.png", node: "logo", bytes: 1)))
        if case .file(let again)? = scope.references(of: 2)[1] { #expect(again.path == "/logo.png") }
        scope.free()
    }

    @Test func theTallyCountsLeftoversOfAStopAsFailedOrCancelled() {
        var tally = Tally()
        tally.count(.succeeded, bytes: 100)
        tally.count(.upToDate, bytes: 0)
        tally.nodesRun = 7
        var failedSlot = ItemWindow.Slot(), cancelledSlot = ItemWindow.Slot()
        failedSlot.item = Item(index: 3, source: "/in/3.jpg")
        failedSlot.failure = ("decode", "damaged")
        cancelledSlot.item = Item(index: 4, source: "/in/4.jpg")
        cancelledSlot.bytes = 50
        tally.leftovers = ([failedSlot, cancelledSlot, ItemWindow.Slot()], [])
        tally.ending = .interrupted
        #expect(!tally.isFinished)
        let summary = tally.finish(items: 4, duration: 1, runNodes: [])
        #expect(tally.isFinished)
        #expect((summary.succeeded, summary.failed, summary.cancelled, summary.upToDate) == (1, 1, 1, 1))
        #expect(summary.bytesWritten == 150 && summary.nodesRun == 7 && summary.ending == .interrupted)
    }
}
