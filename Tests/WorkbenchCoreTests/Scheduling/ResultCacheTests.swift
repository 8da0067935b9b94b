import Foundation
import Testing
@testable import WorkbenchCore

/// Results kept across runs by recipe: a run starts from the first node whose parameters changed.
@Suite struct ResultCacheTests {
    private func chain(last: String) -> String {
        """
        {"version": 1, "graph": [{"id": "in", "op": "test.source"},
                                 {"id": "a", "op": "test.work", "label": "a"},
                                 {"id": "b", "op": "test.work", "label": "b"},
                                 {"id": "c", "op": "test.work", "label": "\(last)"}]}
        """
    }

    private func options(_ cache: ResultCache) -> RunOptions {
        var options = RunOptions(eventDetail: .nodes)
        options.resultCache = cache
        return options
    }

    @Test func aRunStartsFromTheFirstNodeWhoseParametersChanged() async throws {
        let cache = ResultCache(reach: .everyNode)
        let first = try Harness(chain(last: "c"), items: 2, options: options(cache))
        let (one, _) = await first.finish()
        #expect(one.succeeded == 2 && one.nodesRun == 8)

        // Only the last node's parameters differ: it alone runs, on what `b` kept.
        let second = try Harness(chain(last: "c2"), items: 2, options: options(cache))
        let (two, events) = await second.finish()
        #expect(two.succeeded == 2 && two.nodesRun == 2, "\(second.probe.started)")
        #expect(Set(second.probe.started) == ["0/c", "1/c"])
        // Nodes taken from the cache still end as succeeded, in order.
        let ends = Harness.nodes(events).filter { $0.item.index == 0 && $0.state == .succeeded }.map(\.node)
        #expect(ends == ["in", "a", "b", "c"])

        // The same recipe again: nothing runs. Another item (another input) runs whole.
        let third = try Harness(chain(last: "c2"), items: 3, options: options(cache))
        let (three, _) = await third.finish()
        #expect(three.succeeded == 3 && three.nodesRun == 4, "\(third.probe.started)")
        #expect(Set(third.probe.started) == ["2/in", "2/a", "2/b", "2/c"])
    }

    @Test func gatheringNodesAndItemNodesOutsideTheReachAlwaysRun() async throws {
        let preset = """
            {"version": 1, "graph": [{"id": "logo", "op": "test.source", "scope": "run", "value": "L"},
                                     {"id": "in", "op": "test.source"},
                                     {"id": "a", "op": "test.work", "label": "a", "other": "@logo"},
                                     {"id": "all", "op": "test.collect", "scope": "run", "all": "@a[*]"}]}
            """
        let everyNode = ResultCache(reach: .everyNode)
        _ = await (try Harness(preset, items: 2, options: options(everyNode))).finish()
        let again = try Harness(preset, items: 2, options: options(everyNode))
        _ = await again.finish()
        // The sheet gathers every item: made again, from kept item results.
        #expect(again.probe.started == ["-1/all"], "\(again.probe.started)")

        let runScope = ResultCache(reach: .runScope)
        _ = await (try Harness(preset, items: 2, options: options(runScope))).finish()
        let later = try Harness(preset, items: 2, options: options(runScope))
        _ = await later.finish()
        #expect(!later.probe.started.contains("-1/logo") && later.probe.started.filter { $0.hasSuffix("/a") }.count == 2,
                "\(later.probe.started)")
        #expect(runScope.counts.kept == 1)
    }

    @Test func theLeastRecentlyUsedResultsGoOnceTheBudgetIsPassed() {
        let cache = ResultCache(reach: .everyNode, budget: 10)
        for key in ["a", "b", "c"] { cache.keep(.bytes(Bytes(Data(count: 4), origin: key)), for: key) }
        // 12 bytes > 10: "a", the oldest, went.
        #expect(cache.payload(for: "a") == nil && cache.payload(for: "b") != nil)
        cache.keep(.bytes(Bytes(Data(count: 4), origin: "d")), for: "d")
        // "b" was used after "c": "c" went.
        #expect(cache.payload(for: "c") == nil && cache.payload(for: "b") != nil && cache.payload(for: "d") != nil)
        cache.keep(.bytes(Bytes(Data(count: 11), origin: "big")), for: "big")
        #expect(cache.payload(for: "big") == nil)
    }
}
