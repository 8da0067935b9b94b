import Foundation
import Synchronization
import Testing
import WorkbenchTestSupport
@testable import WorkbenchCore

/// Counts items made by the source and items whose body ran, to measure how many are in flight.
private final class Flight: Sendable {
    let made = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    let peak = Atomic<Int>(0)

    func bodyRan() {
        let inFlight = made.load(ordering: .relaxed) - done.load(ordering: .relaxed)
        var seen = peak.load(ordering: .relaxed)
        while inFlight > seen {
            let (exchanged, current) = peak.compareExchange(expected: seen, desired: inFlight, ordering: .relaxed)
            if exchanged { break }
            seen = current
        }
        done.add(1, ordering: .relaxed)
    }
}

private struct CountStage: Stage {
    let flight: Flight
    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        flight.bodyRan()
        return .bytes(Bytes(Data(), origin: ""))
    }
}

/// An async body that ends inside its start, as a download of an input known unchanged does.
private struct AtOnceStage: AsyncStage {
    func start(_ inputs: StageInputs, context: StageContext, completion: @escaping @Sendable (Result<Payload, any Error>) -> Void) {
        completion(.success(.bytes(Bytes(Data(), origin: ""))))
    }
}

@Suite struct SchedulerScaleTests {
    /// Ended one after another without a thread between them, 200,000 such bodies must not nest
    /// the stack a level deeper each (3,000 overflowed it once).
    @Test func asyncBodiesThatEndAtOnceDoNotDeepenTheStack() async throws {
        var registry = OpRegistry()
        registry.register(OpDefinition(OpSpec(name: "now", summary: "", input: nil, output: .bytes, defaultQueue: "net",
                                              execution: .io, parameters: [])) { _ in AtOnceStage() })
        let preset = try TestOps.load(#"{"version": 1, "graph": [{"op": "now"}]}"#, registry: registry)
        let items = ItemSource.generated(count: 200_000) { Item(index: $0, name: "i", source: "s") }
        let run = PresetRun.start(preset, items: items, output: try OutputRoot(try Fixtures.temporaryDirectory("at-once").path),
                                  options: RunOptions(workers: 2, eventDetail: .none))
        let summary = await run.result
        #expect(summary.succeeded == 200_000)
    }

    @Test func aMillionInputsAreInstantiatedWithinTheWindow() async throws {
        let flight = Flight()
        var registry = OpRegistry()
        registry.register(OpDefinition(OpSpec(name: "count", summary: "", input: nil, output: .bytes, defaultQueue: "cpu",
                                              execution: .cpu, parameters: [])) { _ in CountStage(flight: flight) })
        let preset = try TestOps.load(#"{"version": 1, "graph": [{"op": "count"}]}"#, registry: registry)
        let items = ItemSource.generated(count: 1_000_000) { index in
            flight.made.add(1, ordering: .relaxed)
            return Item(index: index, name: "i", source: "s")
        }
        let run = PresetRun.start(preset, items: items, output: try OutputRoot(try Fixtures.temporaryDirectory("scale").path),
                                  options: RunOptions(workers: 2, window: 64))
        var reports = 0
        for await event in run.events { if case .itemFinished = event { reports += 1 } }
        let summary = await run.result
        #expect(summary.succeeded == 1_000_000 && reports == 1_000_000)
        // Items are made only as the window has room: never more than 64 ahead of the finished ones.
        #expect(flight.peak.load(ordering: .relaxed) <= 64)
    }

    @Test func linesOfAFileAreReadLazily() throws {
        let folder = try Fixtures.temporaryDirectory("lines")
        let list = folder.appendingPathComponent("urls.txt")
        try "# photos\nhttps://example.org/a.jpg\n\n  b.jpg  \nc.png".write(to: list, atomically: true, encoding: .utf8)
        let iterator = ItemSource.lines(of: list.path, relativeTo: folder.path).makeIterator()
        #expect(iterator.next()?.source == "https://example.org/a.jpg")
        let second = iterator.next()
        #expect(second?.source == folder.appendingPathComponent("b.jpg").path && second?.index == 1)
        #expect(iterator.next()?.name == "c")
        #expect(iterator.next() == nil)
    }

    /// A list that cannot be read part way ends the listing with the reason (the run then ends
    /// failed with it), where it used to end quietly as if the list were shorter.
    @Test func anItemListThatCannotBeReadSaysSo() throws {
        let folder = try Fixtures.temporaryDirectory("lines-unreadable")
        // A folder opens for reading, and its first read fails (EISDIR).
        let cursor = ItemSource.lines(of: folder.path, relativeTo: folder.path).makeCursor()
        #expect(cursor.next() == nil)
        let failure = try #require(cursor.failure())
        #expect(failure.contains("the item list \(folder.path) could not be read past item 0"), "\(failure)")
        let missing = ItemSource.lines(of: folder.appendingPathComponent("gone.txt").path, relativeTo: folder.path).makeCursor()
        #expect(missing.next() == nil && missing.failure()?.contains("cannot be opened") == true)
        // A whole list still ends without a failure.
        let list = folder.appendingPathComponent("list.txt")
        try "a.jpg\nb.jpg\n".write(to: list, atomically: true, encoding: .utf8)
        let whole = ItemSource.lines(of: list.path, relativeTo: folder.path).makeCursor()
        #expect(whole.next() != nil && whole.next() != nil && whole.next() == nil && whole.failure() == nil)
    }
}
