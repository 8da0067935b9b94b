import Foundation
import Testing
@testable import WorkbenchCore

/// Design §4's cancellation, timeout, retry and fail-fast rules, each on the real scheduler.
@Suite struct CancellationRuleTests {
    @Test func cancellingAnItemCancelsItsDownstreamOnly() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"cpu": {"concurrency": 1}},
             "graph": [{"op": "test.source"}, {"id": "x", "op": "test.work", "ms": 300}, {"id": "y", "op": "test.work"}]}
            """, items: 3, options: RunOptions(workers: 1, eventDetail: .nodes), suspended: true)
        h.probe.onStart.withLock { hook in
            hook = { [run = h.run] _, start in if start.item == 0 && start.node == "x" { run.cancel(item: 0) } }
        }
        h.run.resume()
        let (summary, events) = await h.finish()
        #expect(summary.cancelled == 1 && summary.succeeded == 2)
        let item0 = Harness.nodes(events).filter { $0.item.index == 0 && $0.state.isTerminal }
        #expect(Dictionary(uniqueKeysWithValues: item0.map { ($0.node, $0.state) }) == ["test.source": .succeeded, "x": .cancelled, "y": .cancelled])
        #expect(h.probe.stoppedByToken == ["0/x"])
        #expect(!h.probe.started.contains("0/y"))
    }

    @Test func upstreamNobodyNeedsIsCancelled() async throws {
        // "join" reads "slow" and "bad"; when "bad" fails, "join" is skipped and nothing needs "slow".
        let h = try Harness("""
            {"version": 1, "graph": [{"op": "test.source"},
              {"id": "slow", "op": "test.work", "ms": 5000, "from": "test.source"},
              {"id": "bad", "op": "test.work", "ms": 50, "failFor": "item", "retryable": false, "from": "test.source"},
              {"id": "join", "op": "test.work", "from": "slow", "other": "@bad"}]}
            """, items: 1, options: RunOptions(workers: 2, eventDetail: .nodes))
        let (summary, events) = await h.finish()
        #expect(summary.failed == 1)
        let states = Dictionary(uniqueKeysWithValues: Harness.nodes(events).filter { $0.state.isTerminal }.map { ($0.node, $0.state) })
        #expect(states == ["test.source": .succeeded, "bad": .failed, "join": .skipped, "slow": .cancelled])
        #expect(h.probe.stoppedByToken == ["0/slow"])
    }

    @Test func sharedWorkStaysWhileAnyItemNeedsIt() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [
              {"id": "logo", "op": "test.source", "scope": "run", "value": "L", "ms": 200},
              {"op": "test.source"},
              {"id": "mark", "op": "test.work", "other": "@logo"}]}
            """, items: 3, options: RunOptions(workers: 2, eventDetail: .nodes), suspended: true)
        h.probe.onStart.withLock { hook in
            hook = { [run = h.run] _, start in if start.node == "logo" { run.cancel(item: 0) } }
        }
        h.run.resume()
        let (summary, events) = await h.finish()
        #expect(summary.cancelled == 1 && summary.succeeded == 2)
        #expect(h.probe.starts.filter { $0.node == "logo" }.count == 1)
        let logo = Harness.nodes(events).filter { $0.node == "logo" && $0.state.isTerminal }.map(\.state)
        #expect(logo == [.succeeded])
    }

    @Test func sharedWorkNobodyNeedsIsCancelledAtTheEnd() async throws {
        // Every item fails before it needs "logo", so the slow shared download is abandoned. The
        // items fail only once it has started (test.fail waits for that start), so that it is
        // stopped running, by its token, whichever a loaded machine starts first.
        let h = try Harness("""
            {"version": 1, "graph": [
              {"id": "logo", "op": "test.source", "scope": "run", "value": "L", "ms": 5000},
              {"op": "test.source"},
              {"id": "bad", "op": "test.fail", "after": "logo"},
              {"id": "mark", "op": "test.work", "other": "@logo"}]}
            """, items: 4, options: RunOptions(workers: 2, eventDetail: .nodes))
        let (summary, events) = await h.finish()
        #expect(summary.failed == 4)
        #expect(Harness.nodes(events).filter { $0.node == "logo" && $0.state.isTerminal }.map(\.state) == [.cancelled])
        #expect(h.probe.stoppedByToken == ["-1/logo"])
    }

    @Test func timeoutFailsTheNodeAndStopsItsBody() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [{"op": "test.source"}, {"id": "x", "op": "test.work", "ms": 5000, "timeout": 0.1},
                                     {"id": "y", "op": "test.work"}]}
            """, items: 1)
        let (summary, events) = await h.finish()
        #expect(summary.failed == 1)
        let report = try #require(Harness.items(events).first)
        #expect(report.failure?.node == "x")
        #expect(report.failure?.message == "\"x\" timed out after 0.1 s; raise its \"timeout\" if it needs longer.")
        #expect(h.probe.stoppedByToken == ["0/x"])
        #expect(!h.probe.started.contains("0/y"))
    }

    @Test func retriesBackOffExponentially() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [{"op": "test.source"},
              {"id": "x", "op": "test.work", "failTimes": 3, "retries": 3, "retryDelay": 0.04}]}
            """, items: 1)
        let (summary, _) = await h.finish()
        #expect(summary.succeeded == 1)
        let attempts = h.probe.starts.filter { $0.node == "x" }
        #expect(attempts.map(\.attempt) == [1, 2, 3, 4])
        // Delays are 0.04 · 2^k, each with ±50% jitter: at least 0.02, 0.04, 0.08 s.
        let gaps = zip(attempts, attempts.dropFirst()).map { $1.time - $0.time }
        for (k, gap) in gaps.enumerated() { #expect(gap >= .seconds(0.02 * pow(2, Double(k))), "gap \(k): \(gap)") }
    }

    @Test func retriesStopWhenExhaustedOrNotRetryable() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [{"op": "test.source"},
              {"id": "x", "op": "test.work", "failTimes": 5, "retries": 2, "retryDelay": 0.01},
              {"id": "y", "op": "test.work", "failTimes": 5, "retries": 2, "retryable": false, "from": "test.source"},
              {"id": "out", "op": "write", "path": "{name}", "from": "x"}]}
            """, items: 1)
        let (summary, _) = await h.finish()
        #expect(summary.failed == 1)
        #expect(h.probe.starts.filter { $0.node == "x" }.count == 3)
        #expect(h.probe.starts.filter { $0.node == "y" }.count == 1)
    }

    @Test func failFastStopsAtTheFirstFailure() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"cpu": {"concurrency": 1}},
             "graph": [{"op": "test.source"}, {"id": "x", "op": "test.work", "ms": 2, "failFor": "bad", "retryable": false}]}
            """, items: 200, names: { $0 == 5 ? "bad" : "ok\($0)" }, options: RunOptions(workers: 1, failFast: true))
        let (summary, _) = await h.finish()
        #expect(summary.ending == .failedFast && summary.exitCode == 1)
        #expect(summary.failed == 1 && summary.succeeded == 5)
        #expect(h.probe.starts.filter { $0.node == "x" }.count == 6)
    }

    @Test func fanInCollectsEveryItemInOrderWithoutFailedOnes() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [{"op": "test.source"},
              {"id": "t", "op": "test.work", "failFor": "3", "retryable": false},
              {"id": "sheet", "op": "test.collect", "scope": "run", "all": "@t[*]"},
              {"id": "save", "op": "write", "path": "sheet.txt", "scope": "run", "from": "sheet"}]}
            """, items: 12, options: RunOptions(workers: 2, window: 4, eventDetail: .nodes))
        let (summary, events) = await h.finish()
        #expect(summary.failed == 1 && summary.succeeded == 11)
        #expect(Harness.nodes(events).filter { $0.node == "save" }.last?.state == .succeeded)
        let collected = h.probe.starts.filter { $0.node == "sheet" }
        #expect(collected.count == 1)
        let written = try String(contentsOfFile: h.run.outputPath("sheet.txt"), encoding: .utf8)
        #expect(written == (0..<12).filter { $0 != 3 }.map { "item\($0)" }.joined(separator: ","))
    }

    @Test func aFailedSharedNodeFailsEveryItem() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [
              {"id": "logo", "op": "test.work", "scope": "run", "from": "base", "failFor": "run", "retryable": false},
              {"id": "base", "op": "test.source", "scope": "run", "value": "L"},
              {"op": "test.source"},
              {"id": "mark", "op": "test.work", "other": "@logo"}]}
            """, items: 30, options: RunOptions(workers: 2, window: 8))
        let (summary, events) = await h.finish()
        #expect(summary.failed == 30)
        #expect(Harness.items(events).allSatisfy { $0.failure?.node == "logo" || $0.failure?.node == "mark" })
        #expect(!h.probe.started.contains { $0.hasSuffix("/mark") })
    }
}

@Suite struct RunScopeTests {
    @Test func aGraphOfRunScopeNodesRunsOnceAndEnds() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [
              {"id": "a", "op": "test.source", "scope": "run", "value": "A"},
              {"id": "b", "op": "test.work", "scope": "run", "from": "a"},
              {"id": "save", "op": "write", "scope": "run", "path": "a.txt", "from": "b"}]}
            """, items: 3)
        let (summary, _) = await h.finish()
        #expect(summary.succeeded == 3 && summary.bytesWritten == 1)
        #expect(h.probe.started == ["-1/a", "-1/b"])
        #expect(try String(contentsOfFile: h.run.outputPath("a.txt"), encoding: .utf8) == "A")
    }
}
