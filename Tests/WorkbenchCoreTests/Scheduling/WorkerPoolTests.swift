import Foundation
import Synchronization
import Testing
import WorkbenchTestSupport
@testable import WorkbenchCore

/// Runs as jobs of one shared `WorkerPool`, items fed while a run runs (`ItemFeed`), and an item's
/// priority lowered as well as raised.
@Suite struct WorkerPoolTests {
    private static func preset(qos: String, label: String) -> String {
        """
        {"version": 1, "queues": {"cpu": {"concurrency": 1, "qos": "\(qos)"}},
         "graph": [{"op": "test.source", "ms": 3}, {"id": "w", "op": "test.work", "ms": 3, "label": "\(label)"}]}
        """
    }

    /// One worker, two runs: once the urgent run has work, it gets the worker until it has none,
    /// whatever the other run has waiting.
    @Test func theMostUrgentRunOnASharedEngineGoesFirst() async throws {
        let engine = try WorkerPool(workers: 1)
        defer { engine.shutDown() }
        var options = RunOptions(eventDetail: .items)
        options.pool = engine
        let background = try Harness(Self.preset(qos: "background", label: "late"), items: 10, options: options, suspended: true)
        let urgent = try Harness(Self.preset(qos: "userInteractive", label: "soon"), items: 10, options: options, suspended: true)
        #expect(engine.runCount == 2)
        background.run.resume()
        urgent.run.resume()
        let (late, _) = await background.finish()
        let (soon, _) = await urgent.finish()
        #expect(late.succeeded == 10 && soon.succeeded == 10)
        let lastUrgent = try #require(urgent.probe.starts.map(\.time).max())
        // The background run had the worker alone until the urgent one was resumed: a body or two.
        let before = background.probe.starts.filter { $0.time < lastUrgent }.count
        #expect(before <= 4, "\(before) background bodies started before the urgent run's last")
        #expect(engine.runCount == 0)
    }

    /// Many short runs at once on two shared workers, their work filed while the workers go to
    /// sleep: every one ends (a lost wake-up would leave one waiting for ever).
    @Test(.timeLimit(.minutes(1))) func manyRunsOnTwoWorkersAllEnd() async throws {
        let engine = try WorkerPool(workers: 2)
        defer { engine.shutDown() }
        var options = RunOptions(window: 4, eventDetail: .none)
        options.pool = engine
        let runs = try (0..<6).map { k in
            try Harness(Self.preset(qos: k % 2 == 0 ? "utility" : "userInteractive", label: "r\(k)")
                .replacingOccurrences(of: "\"ms\": 3", with: "\"ms\": 0"), items: 300, options: options)
        }
        for run in runs { #expect(await run.finish().0.succeeded == 300) }
        #expect(engine.runCount == 0)
    }

    /// A run over a feed takes items as they come, in the feed's order, and ends only once the
    /// feed is closed; an item put back in the waiting list before it was taken is not run.
    @Test func aFedRunTakesItemsInTheFeedsOrderAndEndsWhenItCloses() async throws {
        let probe = Probe()
        let taken = Taken()
        let feed = ItemFeed(onTake: { taken.add($0.index) })
        let preset = try TestOps.load(Self.preset(qos: "utility", label: "w"), registry: TestOps.registry(probe: probe))
        let item = { (i: Int) in Item(index: i, name: "item\(i)", source: "/nowhere/\(i)") }
        var options = RunOptions(workers: 1, window: 1, eventDetail: .items)
        options.agingInterval = 0
        options.startSuspended = true
        let run = PresetRun.start(preset, items: .feed(feed), output: try OutputRoot(try Fixtures.temporaryDirectory("feed").path),
                                  options: options)
        let ended = Task { await run.events.reduce(into: [Int]()) { if case .itemFinished(let r) = $1 { $0.append(r.item.index) } } }
        // Suspended, the run takes item 3 into its window of one and starts nothing.
        feed.setWaiting([item(3), item(1), item(2)])
        // The page scrolled: 2 is no longer wanted, 0 is.
        feed.setWaiting([item(0), item(1)])
        run.resume()
        await probe.waitForStarts("w", count: 3)
        feed.close()
        let summary = await run.result
        #expect(summary.succeeded == 3 && summary.items == 3, "\(summary)")
        #expect(await ended.value == [3, 0, 1])
        #expect(taken.all == [3, 0, 1])
    }

    /// Lowering an item sends it behind every other item's work.
    @Test func anItemLoweredRunsLast() async throws {
        let h = try Harness("""
            {"version": 1, "queues": {"cpu": {"concurrency": 1, "qos": "utility"}},
             "graph": [{"op": "test.source"}, {"id": "w", "op": "test.work"}]}
            """, items: 8, options: RunOptions(workers: 1, agingInterval: 0), suspended: true)
        h.run.prioritize(item: 0, to: .background)
        h.run.resume()
        _ = await h.finish()
        #expect(Array(h.probe.started.suffix(2)) == ["0/test.source", "0/w"], "\(h.probe.started)")
    }

    private final class Taken: Sendable {
        private let indices = Mutex<[Int]>([])
        var all: [Int] { indices.withLock { $0 } }
        func add(_ index: Int) { indices.withLock { $0.append(index) } }
    }
}
