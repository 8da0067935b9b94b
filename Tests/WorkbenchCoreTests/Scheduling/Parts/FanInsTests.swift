import Testing
@testable import WorkbenchCore

@Suite struct FanInsTests {
    static func payload(_ text: String) -> Payload { .file(OutputFile(path: text, node: "w", bytes: 0)) }
    static func paths(_ list: [Payload]) -> [String] {
        list.map { if case .file(let file) = $0 { file.path } else { "?" } }
    }

    /// Node 0 (item scope) feeds node 1's input 0 (a fan-in); node 1's input 1 is an ordinary edge from node 2.
    static var graph: FanIns { FanIns(inputs: [[], [(0, true), (2, false)], []]) }

    @Test func contributionsAreGatheredInItemOrderOnceTheListHasEnded() {
        var fanIns = Self.graph
        #expect(fanIns.feeds(0) && !fanIns.feeds(2))
        let slot = fanIns.slot(node: 1, edge: 0)
        #expect(slot == 0 && fanIns.slot(node: 1, edge: 1) == -1)
        for _ in 0..<3 { fanIns.expect(from: 0) }
        var completed: [FanIns.Target] = []
        fanIns.contribute(Self.payload("c"), from: 0, item: 2, listEnded: false, isClosed: { _ in false }, completed: { completed.append($0) })
        fanIns.contribute(nil, from: 0, item: 1, listEnded: false, isClosed: { _ in false }, completed: { completed.append($0) })
        #expect(!fanIns.isComplete(slot, listEnded: true))
        // The last item ends after the list did: the fan-in is complete.
        fanIns.contribute(Self.payload("a"), from: 0, item: 0, listEnded: true, isClosed: { _ in false }, completed: { completed.append($0) })
        #expect(completed.map(\.node) == [1] && completed.map(\.edge) == [0])
        let gathered = fanIns.gather(slot), again = fanIns.gather(slot)
        #expect(Self.paths(gathered) == ["a", "c"] && again.isEmpty)
        fanIns.free()
    }

    @Test func aClosedTargetTakesNothing() {
        var fanIns = Self.graph
        fanIns.expect(from: 0)
        var completed = 0
        fanIns.contribute(Self.payload("a"), from: 0, item: 0, listEnded: true, isClosed: { $0 == 1 }, completed: { _ in completed += 1 })
        let gathered = fanIns.gather(0)
        #expect(completed == 0 && !fanIns.isComplete(0, listEnded: true) && gathered.isEmpty)
        fanIns.free()
    }
}
