import Testing
@testable import WorkbenchCore

@Suite struct ItemWindowTests {
    static func items(_ count: Int) -> ItemSource {
        .list((0..<count).map { Item(index: $0, source: "/in/\($0).jpg") })
    }

    @Test func admitsUntilFullThenReusesAReleasedSlot() {
        var window = ItemWindow(capacity: 2, nodeCount: 3, items: Self.items(5))
        guard case .item(let first, let s0) = window.admit(unfinished: 3),
              case .item(let second, let s1) = window.admit(unfinished: 3) else {
            Issue.record("two items expected")
            return
        }
        #expect((first.index, second.index) == (0, 1) && s0 != s1)
        guard case .full = window.admit(unfinished: 3) else { Issue.record("a full window admits nothing"); return }
        window.slots[s0].files.append(OutputFile(path: "/out/0.jpg", node: "w", bytes: 10))
        window.slots[s0].bytes = 10
        window.release(s0)
        #expect(window.live == 1 && window.slots[s0].item == nil && window.slots[s0].files.isEmpty && window.slots[s0].bytes == 0)
        guard case .item(let third, let s2) = window.admit(unfinished: 3) else { Issue.record("a freed slot takes the next item"); return }
        #expect(third.index == 2 && s2 == s0 && window.admitted == 3 && window.slots[s2].unfinished == 3)
    }

    @Test func theEndOfTheListIsReportedOnceAsJustEnded() {
        var window = ItemWindow(capacity: 4, nodeCount: 1, items: Self.items(1))
        guard case .item = window.admit(unfinished: 1) else { Issue.record("one item"); return }
        guard case .listEnded(true) = window.admit(unfinished: 1) else { Issue.record("first end"); return }
        guard case .listEnded(false) = window.admit(unfinished: 1) else { Issue.record("later ends"); return }
        #expect(window.exhausted && window.total == 1)
    }

    @Test func instancesAreAddressedBySlotAndNodeWithRunScopeAfterTheSlots() {
        var window = ItemWindow(capacity: 3, nodeCount: 4, items: Self.items(3))
        for _ in 0..<3 { _ = window.admit(unfinished: 4) }
        // Slot 2, node 1.
        let id = 2 * 4 + 1
        #expect(window.node(of: id) == 1 && window.slot(of: id) == 2)
        #expect(window.item(of: id).index == window.slots[2].itemIndex)
        let run = window.runInstance(3)
        #expect(run == 3 * 4 + 3 && window.slot(of: run) == nil && window.item(of: run).index == Item.run.index)
        #expect(window.itemIndex(of: run) == -1)
        #expect(window.slot(holding: window.slots[1].itemIndex) == 1 && window.slot(holding: 99) == nil)
        // A stop empties the window; addressing then says "run" rather than failing.
        let all = window.takeAll()
        #expect(all.count == 3 && window.item(of: id).index == Item.run.index && window.itemIndex(of: id) == -1)
    }

    @Test func aSlotsStatusIsItsFailureThenCancellationThenWhatItWrote() {
        var slot = ItemWindow.Slot()
        #expect(slot.status == .succeeded)
        slot.upToDate = [OutputFile(path: "/out/a.jpg", node: "w", bytes: 1)]
        #expect(slot.status == .upToDate)
        slot.files = [OutputFile(path: "/out/b.jpg", node: "w", bytes: 1)]
        #expect(slot.status == .succeeded)
        slot.cancelled = true
        #expect(slot.status == .cancelled)
        slot.failure = ("decode", "damaged")
        #expect(slot.status == .failed)
    }
}
