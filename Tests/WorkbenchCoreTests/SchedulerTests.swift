import Foundation
import Synchronization
import Testing
import WorkbenchTestSupport
@testable import WorkbenchCore

@Suite struct SchedulerTests {
    private func run(_ json: String, items: Int, probe: Probe, names: (Int) -> String = { "item\($0)" },
                     token: CancellationToken = CancellationToken(),
                     onEvent: @escaping @Sendable (RunEvent) -> Void = { _ in }) async throws -> RunSummary {
        let preset = try TestOps.load(json, registry: TestOps.registry(probe: probe))
        let list = (0..<items).map { Item(index: $0, name: names($0), source: "/nowhere/\($0)") }
        let root = try OutputRoot(try Fixtures.temporaryDirectory("sched").path)
        return await PresetRun(preset: preset, items: list, output: root, cancellation: token).run(onEvent: onEvent)
    }

    @Test func queueLimitsHoldUnderLoad() async throws {
        let probe = Probe()
        let summary = try await run("""
            {"version": 1, "queues": {"a": {"concurrency": 3}, "b": {"concurrency": 1}},
             "graph": [{"op": "test.source"},
                       {"id": "x", "op": "test.work", "ms": 2, "queue": "a", "label": "a"},
                       {"id": "y", "op": "test.work", "ms": 1, "queue": "b", "label": "b"}]}
            """, items: 60, probe: probe)
        #expect(summary.succeeded == 60 && summary.exitCode == 0)
        #expect(probe.peak("a") <= 3)
        #expect(probe.peak("b") == 1)
        #expect(probe.started.count == 120)
    }

    @Test func failureSkipsDownstreamOnlyInItsItem() async throws {
        let probe = Probe()
        let reports = Mutex<[ItemReport]>([])
        let summary = try await run("""
            {"version": 1, "graph": [{"op": "test.source"},
              {"id": "x", "op": "test.work", "failFor": "bad"}, {"id": "y", "op": "test.work"}]}
            """, items: 5, probe: probe, names: { $0 == 2 ? "bad" : "good\($0)" }, onEvent: { event in
            if case .itemFinished(let report) = event { reports.withLock { $0.append(report) } }
        })
        #expect(summary.failed == 1 && summary.succeeded == 4 && summary.exitCode == 1)
        #expect(!probe.started.contains("bad/y"))
        let bad = reports.withLock { $0.first { $0.item.name == "bad" } }
        #expect(bad?.status == .failed)
        #expect(bad?.failure?.node == "x")
        #expect(bad?.failure?.message == "Cannot read \"bad\": planned failure.")
    }

    @Test func noBodyStartsAfterCancel() async throws {
        let probe = Probe()
        let token = CancellationToken()
        let startedAtCancel = Mutex<Int?>(nil)
        let summary = try await run("""
            {"version": 1, "queues": {"cpu": {"concurrency": 2}},
             "graph": [{"op": "test.source"}, {"id": "x", "op": "test.work", "ms": 5}]}
            """, items: 200, probe: probe, token: token, onEvent: { event in
            if case .node(let e) = event, e.node == "x", e.state == .succeeded, e.item.index == 9 {
                token.cancel()
                startedAtCancel.withLock { $0 = probe.started.count }
            }
        })
        #expect(summary.wasCancelled && summary.exitCode == 130)
        #expect(summary.cancelled > 150)
        // Counted right after cancel(): only a body on the other worker that had already passed
        // the scheduler's check (but not yet reached the probe) may still show up.
        let before = try #require(startedAtCancel.withLock { $0 })
        #expect(probe.started.count <= before + 1)
        #expect(summary.succeeded + summary.cancelled == 200)
    }

    @Test func taskCancellationStopsTheRun() async throws {
        let probe = Probe()
        let task = Task {
            try await run("""
                {"version": 1, "graph": [{"op": "test.source"}, {"id": "x", "op": "test.work", "ms": 20}]}
                """, items: 1000, probe: probe)
        }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let summary = try await task.value
        #expect(summary.wasCancelled)
        #expect(probe.started.count < 1000)
    }

    @Test func earlierItemsFinishFirst() async throws {
        let probe = Probe()
        let order = Mutex<[Int]>([])
        _ = try await run("""
            {"version": 1, "queues": {"cpu": {"concurrency": 1}},
             "graph": [{"op": "test.source"}, {"id": "x", "op": "test.work"}, {"id": "y", "op": "test.work"}]}
            """, items: 20, probe: probe, onEvent: { event in
            if case .itemFinished(let r) = event { order.withLock { $0.append(r.item.index) } }
        })
        // One permit, depth-first: each item runs to the end before the next one starts.
        #expect(order.withLock { $0 } == Array(0..<20))
    }
}
