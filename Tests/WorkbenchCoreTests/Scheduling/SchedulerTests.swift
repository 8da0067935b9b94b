import Foundation
import Synchronization
import Testing
import WorkbenchTestSupport
@testable import WorkbenchCore

/// Runs presets of test stages through the real scheduler.
struct Harness {
    let probe = Probe()
    let run: PresetRun
    let events: Task<[RunEvent], Never>

    init(_ json: String, items: Int, names: @escaping @Sendable (Int) -> String = { "item\($0)" },
         options: RunOptions = RunOptions(eventDetail: .nodes), suspended: Bool = false,
         start: ((PresetRun) -> Void)? = nil) throws {
        let probe = self.probe
        let preset = try TestOps.load(json, registry: TestOps.registry(probe: probe))
        let root = try OutputRoot(try Fixtures.temporaryDirectory("sched").path)
        var options = options
        options.startSuspended = suspended
        // These tests order work across all their items: every item is in the window at once.
        if options.window == nil { options.window = 256 }
        run = PresetRun.start(preset, items: .generated(count: items) { Item(index: $0, name: names($0), source: "/nowhere/\($0)") },
                              output: root, options: options)
        let stream = run.events, seen = self.seen
        events = Task {
            var all: [RunEvent] = []
            for await event in stream {
                all.append(event)
                seen.add(event)
            }
            return all
        }
        start?(run)
    }

    /// The events so far, for waiting on one as it arrives.
    let seen = SeenEvents()

    final class SeenEvents: Sendable {
        private typealias Waiter = (met: @Sendable ([RunEvent]) -> Bool, continuation: CheckedContinuation<Void, Never>)
        private let state = Mutex<(events: [RunEvent], waiters: [Waiter])>(([], []))

        var nodes: [NodeEvent] { state.withLock { $0.events }.compactMap { if case .node(let e) = $0 { e } else { nil } } }

        func add(_ event: RunEvent) {
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.events.append(event)
                let events = state.events
                let met = state.waiters.filter { $0.met(events) }
                state.waiters.removeAll { $0.met(events) }
                return met.map(\.continuation)
            }
            for continuation in ready { continuation.resume() }
        }

        /// Returns once `count` node events of node `node` in `state` have arrived.
        func waitFor(_ count: Int, of node: String, in state: NodeState) async {
            let met: @Sendable ([RunEvent]) -> Bool = { events in
                events.count { if case .node(let e) = $0 { e.node == node && e.state == state } else { false } } >= count
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = self.state.withLock { s -> Bool in
                    if met(s.events) { return true }
                    s.waiters.append((met, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    func finish() async -> (RunSummary, [RunEvent]) {
        let summary = await run.result
        return (summary, await events.value)
    }

    static func items(_ events: [RunEvent]) -> [ItemReport] {
        events.compactMap { if case .itemFinished(let r) = $0 { r } else { nil } }
    }

    static func nodes(_ events: [RunEvent]) -> [NodeEvent] {
        events.compactMap { if case .node(let e) = $0 { e } else { nil } }
    }
}

@Suite struct SchedulerTests {
    /// Two nodes that find the same damage (both read pixels of one damaged decode) say it once
    /// in the item's report; another warning is kept beside it.
    @Test func aWarningIsSaidOnceAnItem() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [{"id": "source", "op": "test.source"},
                                     {"id": "x", "op": "test.warn", "message": "premature end of data"},
                                     {"id": "y", "op": "test.warn", "message": "premature end of data"},
                                     {"id": "z", "op": "test.warn", "message": "something else"}]}
            """, items: 2)
        let (summary, events) = await h.finish()
        #expect(summary.succeeded == 2)
        for report in Harness.items(events) {
            #expect(report.warnings == ["source: premature end of data", "source: something else"], "\(report.warnings)")
        }
    }

    @Test func queueLimitsHoldUnderLoad() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"a": {"concurrency": 3}, "b": {"concurrency": 1}, "n": {"concurrency": 2}},
             "graph": [{"op": "test.source"},
                       {"id": "x", "op": "test.work", "ms": 2, "queue": "a", "label": "a"},
                       {"id": "z", "op": "test.io", "ms": 1, "queue": "n", "label": "n"},
                       {"id": "y", "op": "test.work", "ms": 1, "queue": "b", "label": "b"}]}
            """, items: 60, options: RunOptions(workers: 4))
        let (summary, _) = await h.finish()
        #expect(summary.succeeded == 60 && summary.exitCode == 0)
        #expect(h.probe.peak("a") <= 3 && h.probe.peak("a") >= 2)
        #expect(h.probe.peak("b") == 1)
        #expect(h.probe.peak("n") <= 2)
        #expect(h.probe.starts.count == 240)
    }

    @Test func failureSkipsDownstreamOnlyInItsItem() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [{"op": "test.source"},
              {"id": "x", "op": "test.work", "failFor": "bad", "retryable": false}, {"id": "y", "op": "test.work"}]}
            """, items: 5, names: { $0 == 2 ? "bad" : "good\($0)" })
        let (summary, events) = await h.finish()
        #expect(summary.failed == 1 && summary.succeeded == 4 && summary.exitCode == 1)
        #expect(!h.probe.started.contains("2/y"))
        let bad = Harness.items(events).first { $0.item.name == "bad" }
        #expect(bad?.status == .failed)
        #expect(bad?.failure?.node == "x")
        #expect(bad?.failure?.message == "planned failure")
        let y = Harness.nodes(events).filter { $0.item.index == 2 && $0.node == "y" }.map(\.state)
        #expect(y == [.skipped])
    }

    /// An I/O op put on a queue CPU work also uses holds that queue's permits on I/O threads;
    /// when such a body ends, a CPU worker waiting for a permit must be woken (it used to stay
    /// asleep with ready work left, and the run never ended — one run in three: a regression
    /// shows as this test never returning, which the suite's own limit reports).
    @Test func ioWorkOnACPUQueueNeverStrandsTheCPUWork() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"cpu": {"concurrency": 2}},
             "graph": [{"op": "test.source"}, {"id": "fetch", "op": "test.io", "queue": "cpu", "ms": 0},
                       {"id": "x", "op": "test.work", "ms": 0}, {"id": "store", "op": "test.io", "queue": "cpu", "ms": 0}]}
            """, items: 3000, options: RunOptions(workers: 2, window: 8, eventDetail: .items))
        let (summary, _) = await h.finish()
        #expect(summary.succeeded == 3000 && summary.ending == .completed, "\(summary)")
    }

    @Test func noBodyStartsAfterCancel() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"cpu": {"concurrency": 2}},
             "graph": [{"op": "test.source"}, {"id": "x", "op": "test.work", "ms": 2}]}
            """, items: 400, suspended: true)
        // Cancel from inside the 40th body, then flag every body that still starts.
        h.probe.onStart.withLock { hook in
            hook = { [run = h.run, probe = h.probe] count, _ in
                guard count == 40 else { return }
                run.cancel()
                probe.cancelledAt.withLock { $0 = .now }
            }
        }
        h.run.resume()
        let (summary, events) = await h.finish()
        #expect(summary.ending == .interrupted && summary.exitCode == 130)
        #expect(h.probe.startedAfterCancel.load(ordering: .relaxed) == 0)
        #expect(h.probe.starts.count < 100)
        // Every instantiated item is reported once, and each node instance ends exactly once.
        let reports = Harness.items(events)
        #expect(Set(reports.map(\.item.index)).count == reports.count)
        #expect(summary.succeeded + summary.cancelled + summary.failed == summary.items)
        var terminal: [String: Int] = [:]
        for e in Harness.nodes(events) where e.state.isTerminal { terminal["\(e.item.index)/\(e.node)", default: 0] += 1 }
        #expect(terminal.values.allSatisfy { $0 == 1 })
        #expect(terminal.count == summary.items * 2)
    }

    @Test func taskCancellationStopsTheRun() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [{"op": "test.source"}, {"id": "x", "op": "test.work", "ms": 20}]}
            """, items: 1_000_000, options: RunOptions())
        let task = Task { await h.run.result }
        try await Task.sleep(for: .milliseconds(100))
        // Counted just before cancelling: how late this task wakes (other tests may hold the
        // cooperative threads) does not matter, only what starts after the cancellation.
        let before = h.probe.starts.filter { $0.node == "x" }.count
        task.cancel()
        let summary = await task.value
        #expect(summary.ending == .interrupted)
        // A million items of 20 ms on two workers take hours, so the run cannot end by itself
        // even when blocking tests hold the cooperative threads and this task wakes minutes
        // late (seen in CI: 10,000 items had all finished). Once cancelled, nothing new starts
        // beyond what the workers had already picked.
        let after = h.probe.starts.filter { $0.node == "x" }.count
        #expect(after - before <= 4, "\(after - before) bodies started after the cancellation")
        #expect(summary.succeeded < 1_000_000)
    }

    @Test func depthFirstProgress() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"a": {"concurrency": 8}, "b": {"concurrency": 2}, "c": {"concurrency": 1}},
             "graph": [{"op": "test.source", "queue": "a"}, {"id": "x", "op": "test.work", "queue": "b"},
                       {"id": "y", "op": "test.work", "queue": "c"}]}
            """, items: 50, options: RunOptions(workers: 1, eventDetail: .nodes))
        let (_, events) = await h.finish()
        // One worker, downstream preferred: each item runs to its end before the next one starts.
        #expect(Harness.items(events).map(\.item.index) == Array(0..<50))
        #expect(Array(h.probe.started.prefix(6)) == ["0/test.source", "0/x", "0/y", "1/test.source", "1/x", "1/y"])
    }

    @Test func higherQoSIsServedFirst() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"hi": {"concurrency": 4, "qos": "userInteractive"}, "lo": {"concurrency": 4, "qos": "background"}},
             "graph": [{"op": "test.source", "queue": "lo"},
                       {"id": "low", "op": "test.work", "queue": "lo", "label": "lo", "from": "test.source"},
                       {"id": "high", "op": "test.work", "queue": "hi", "label": "hi", "from": "test.source"}]}
            """, items: 20, options: RunOptions(workers: 1, agingInterval: 0), suspended: true)
        h.run.resume()
        _ = await h.finish()
        let labels = h.probe.starts.map(\.label)
        // The sources inherit the high QoS of "high"; every "lo" body comes after every "hi" body.
        let lastHigh = try #require(labels.lastIndex(of: "hi"))
        let firstLow = try #require(labels.firstIndex(of: "lo"))
        #expect(lastHigh < firstLow, "\(labels)")
    }

    @Test func agingPreventsStarvation() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"hi": {"concurrency": 4, "qos": "userInteractive"}, "lo": {"concurrency": 4, "qos": "background"}},
             "graph": [{"op": "test.source", "queue": "hi"},
                       {"id": "low", "op": "test.work", "queue": "lo", "label": "lo", "from": "test.source"},
                       {"id": "high", "op": "test.work", "queue": "hi", "label": "hi", "ms": 4, "from": "test.source"}]}
            """, items: 60, options: RunOptions(workers: 1, window: 60, agingInterval: 0.01), suspended: true)
        h.run.resume()
        _ = await h.finish()
        let labels = h.probe.starts.map(\.label)
        // 60 × 4 ms of urgent work; a background node waits at most ~3 aging steps (30 ms).
        let firstLow = try #require(labels.firstIndex(of: "lo"))
        let highBefore = labels[..<firstLow].filter { $0 == "hi" }.count
        #expect(highBefore < 30, "\(highBefore) high bodies ran before the first low one")
    }

    @Test func priorityIsInheritedFromDownstream() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"bg": {"concurrency": 4, "qos": "background"}, "bg2": {"concurrency": 4, "qos": "background"},
                                      "urgent": {"concurrency": 4, "qos": "userInteractive"}},
             "graph": [{"op": "test.source", "queue": "bg"},
                       {"id": "z", "op": "test.work", "queue": "bg2", "label": "z", "from": "test.source"},
                       {"id": "x", "op": "test.work", "queue": "bg", "label": "x", "from": "test.source"},
                       {"id": "y", "op": "test.work", "queue": "urgent", "label": "y"}]}
            """, items: 20, options: RunOptions(workers: 1, agingInterval: 0), suspended: true)
        h.run.resume()
        _ = await h.finish()
        let labels = h.probe.starts.map(\.label)
        // "x" is background but feeds "y" (userInteractive), so it runs before every "z".
        #expect(try #require(labels.lastIndex(of: "x")) < (try #require(labels.firstIndex(of: "z"))), "\(labels)")
    }

    @Test func prioritizeMovesAnItemAhead() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"cpu": {"concurrency": 1, "qos": "utility"}},
             "graph": [{"op": "test.source"}, {"id": "w", "op": "test.work"}]}
            """, items: 20, options: RunOptions(workers: 1, agingInterval: 0), suspended: true)
        h.run.prioritize(item: 15)
        h.run.resume()
        _ = await h.finish()
        #expect(Array(h.probe.started.prefix(2)) == ["15/test.source", "15/w"])
    }

    @Test func suspendAndResumeAQueueAndTheRun() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"a": {"concurrency": 2}, "b": {"concurrency": 2}},
             "graph": [{"op": "test.source", "queue": "a"}, {"id": "x", "op": "test.work", "queue": "b", "label": "b"}]}
            """, items: 10, suspended: true, start: { $0.suspend(queue: "b"); $0.resume() })
        // Waits for the sources to start rather than a fixed time: a loaded machine may take longer.
        // Every x is ready once its source has ended: a worker free for them would start them
        // at once, and none has.
        await h.seen.waitFor(10, of: "x", in: .ready)
        #expect(h.probe.starts.filter { $0.label == "b" }.isEmpty)
        #expect(!h.seen.nodes.contains { $0.node == "x" && $0.state == .running })
        #expect(h.probe.starts.filter { $0.label == "source" }.count == 10)
        h.run.resume(queue: "b")
        let (summary, _) = await h.finish()
        #expect(summary.succeeded == 10)

        let whole = try Harness("""
            {"version": 1, "graph": [{"op": "test.source"}]}
            """, items: 5, suspended: true)
        // Admitted and ready, and nothing started.
        await whole.seen.waitFor(5, of: "test.source", in: .ready)
        #expect(whole.probe.starts.isEmpty)
        whole.run.resume()
        #expect(await whole.finish().0.succeeded == 5)
    }
}

@Suite struct RunEventTests {
    @Test func everyTransitionIsAnEventWithATimestamp() async throws {
        let h = try Harness("""
            {"version": 1, "graph": [{"op": "test.source"}, {"id": "x", "op": "test.work", "ms": 1}]}
            """, items: 5)
        let (summary, events) = await h.finish()
        guard case .runStarted(let count, let perItem)? = events.first else { Issue.record("no runStarted first"); return }
        #expect(count == 5 && perItem == 2)
        guard case .runFinished(let last)? = events.last else { Issue.record("no runFinished last"); return }
        #expect(last.succeeded == summary.succeeded)
        let nodes = Harness.nodes(events)
        for item in 0..<5 {
            for node in ["test.source", "x"] {
                let states = nodes.filter { $0.item.index == item && $0.node == node }
                #expect(states.map(\.state) == [.ready, .running, .succeeded], "\(item)/\(node)")
                #expect(zip(states, states.dropFirst()).allSatisfy { $0.time <= $1.time })
            }
        }
        #expect(zip(nodes, nodes.dropFirst()).allSatisfy { $0.time <= $1.time })
        #expect(Harness.items(events).count == 5)
    }
}
