import Foundation
import Testing
@testable import WorkbenchCore

/// A small deterministic random generator (SplitMix64), so a failing seed can be replayed.
private struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}

@Suite struct SchedulerStressTests {
    /// A random preset: a source, then work nodes reading a random earlier node (and sometimes a
    /// second one by reference), on three queues with random limits; some fail for some items.
    private func randomPreset(_ random: inout SeededRandom) -> (json: String, limits: [String: Int], upstream: [String: [String]]) {
        let limits = ["qa": Int.random(in: 1...3, using: &random), "qb": Int.random(in: 1...3, using: &random),
                      "qc": Int.random(in: 1...2, using: &random)]
        var nodes = [#"{"id": "n0", "op": "test.source", "queue": "qa"}"#]
        var upstream: [String: [String]] = ["n0": []]
        var ids = ["n0"]
        if Bool.random(using: &random) {
            nodes.append(#"{"id": "shared", "op": "test.source", "scope": "run", "value": "S", "ms": 3, "queue": "qb"}"#)
            upstream["shared"] = []
        }
        for i in 1..<Int.random(in: 2...7, using: &random) {
            let queue = ["qa", "qb", "qc"].randomElement(using: &random)!
            let from = ids.randomElement(using: &random)!
            var node = #"{"id": "n\#(i)", "op": "test.work", "queue": "\#(queue)", "label": "\#(queue)", "from": "\#(from)", "ms": \#(Int.random(in: 0...2, using: &random)), "retryable": false"#
            var ups = [from]
            switch Int.random(in: 0..<8, using: &random) {
            case 0, 1: node += #", "failFor": "x\#(Int.random(in: 0...9, using: &random))""#
            case 2: node = node.replacingOccurrences(of: #""retryable": false"#, with: #""failTimes": 1, "retries": 2, "retryDelay": 0.001"#)
            case 3: node += #", "timeout": 0.5"#
            default: break
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                let other = (ids + (upstream["shared"] != nil ? ["shared"] : [])).randomElement(using: &random)!
                node += #", "other": "@\#(other)""#
                ups.append(other)
            }
            nodes.append(node + "}")
            upstream["n\(i)"] = ups
            ids.append("n\(i)")
        }
        let queues = limits.map { #""\#($0.key)": {"concurrency": \#($0.value)}"# }.joined(separator: ", ")
        return (#"{"version": 1, "queues": {\#(queues)}, "graph": [\#(nodes.joined(separator: ",\n"))]}"#, limits, upstream)
    }

    @Test(arguments: 1...300)
    func randomGraphsKeepTheInvariants(seed: UInt64) async throws {
        var random = SeededRandom(state: seed)
        let (json, limits, upstream) = randomPreset(&random)
        let items = Int.random(in: 5...40, using: &random)
        let tags = (0..<items).map { _ in Int.random(in: 0...9, using: &random) }
        let options = RunOptions(workers: Int.random(in: 1...3, using: &random), window: Int.random(in: 1...12, using: &random),
                                 eventDetail: .nodes, agingInterval: [0, 0.005, 0.25].randomElement(using: &random)!)
        let h = try Harness(json, items: items, names: { "i\($0)x\(tags[$0])" }, options: options)
        let cancels = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            (Int.random(in: 0..<items, using: &random), Int.random(in: 0...30, using: &random))
        }
        let stopAll = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0...40, using: &random) : nil
        let run = h.run
        let chaos = Task {
            for (item, ms) in cancels {
                try? await Task.sleep(for: .milliseconds(ms))
                run.cancel(item: item)
            }
            if let stopAll {
                try? await Task.sleep(for: .milliseconds(stopAll))
                run.cancel()
            }
        }
        let finished = Task { await h.finish() }
        let watchdog = Task {
            // Generous: in a full test run, blocking tests can hold the cooperative threads for
            // a minute or more, and this task must not mistake that for a deadlock.
            try await Task.sleep(for: .seconds(300))
            Issue.record("seed \(seed): no end after 300 s (deadlock?)")
            run.cancel()
        }
        let (summary, events) = await finished.value
        watchdog.cancel()
        await chaos.value

        // Limits held.
        for (queue, limit) in limits { #expect(h.probe.peak(queue) <= limit, "seed \(seed): \(queue)") }
        // Every instantiated node instance ended exactly once.
        let nodeEvents = Harness.nodes(events)
        var terminal: [String: NodeState] = [:]
        var duplicates = 0
        for e in nodeEvents where e.state.isTerminal {
            let key = e.item.index < 0 ? "run/\(e.node)" : "\(e.item.index)/\(e.node)"
            if terminal[key] != nil { duplicates += 1 }
            terminal[key] = e.state
        }
        #expect(duplicates == 0, "seed \(seed)")
        let reported = Harness.items(events)
        #expect(reported.count == summary.items, "seed \(seed)")
        let itemNodes = upstream.keys.filter { $0 != "shared" }
        for report in reported {
            for node in itemNodes { #expect(terminal["\(report.item.index)/\(node)"] != nil, "seed \(seed): \(report.item.index)/\(node) never ended") }
        }
        // Nothing ran unless all its upstream instances succeeded.
        for start in h.probe.starts where start.item >= 0 {
            for u in upstream[start.node] ?? [] {
                let key = u == "shared" ? "run/shared" : "\(start.item)/\(u)"
                #expect(terminal[key] == .succeeded, "seed \(seed): \(start.item)/\(start.node) ran after \(key) was \(String(describing: terminal[key]))")
            }
        }
        #expect(summary.succeeded + summary.failed + summary.cancelled == summary.items, "seed \(seed)")
        if stopAll == nil && cancels.isEmpty { #expect(summary.items == items, "seed \(seed)") }
    }
}
