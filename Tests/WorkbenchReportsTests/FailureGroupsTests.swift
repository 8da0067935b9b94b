import Testing
@testable import WorkbenchCore
@testable import WorkbenchReports

/// The end of a run's failures: items failing alike are one cause, and a message keeps the
/// words that merely equal an item's name.
@Suite struct FailureGroupsTests {
    private func failed(_ name: String, _ message: String, index: Int = 0) -> ItemReport {
        ItemReport(item: Item(index: index, name: name, source: "/photos/\(name).jpg"), status: .failed, files: [], bytesWritten: 0,
                   failure: (node: "image", message: message), duration: 0)
    }

    @Test func anItemNamedLikeAWordOfItsMessageKeepsTheWord() {
        var groups = FailureGroups()
        groups.add(failed("empty", "Cannot decode \"/photos/empty.jpg\": the file is empty (0 bytes)"))
        #expect(groups.lines == ["Failed (1):", "  1 × image: Cannot decode \"/photos/empty.jpg\": the file is empty (0 bytes)", "      empty"])
    }

    @Test func itemsFailingAlikeAreOneCauseWithTheirNamesTakenOut() {
        var groups = FailureGroups()
        groups.add(failed("a-photo", "Cannot decode \"/photos/a-photo.jpg\": truncated", index: 0))
        groups.add(failed("b-photo", "Cannot decode \"/photos/b-photo.jpg\": truncated", index: 1))
        groups.add(failed("truncated", "Cannot decode \"/photos/truncated.jpg\": truncated", index: 2))
        #expect(groups.lines == ["Failed (3):", "  3 × image: Cannot decode \"…\": truncated", "      a-photo, b-photo, truncated"])
    }

    @Test func anItemNamedInAPluginsWordsIsOneCause() {
        var groups = FailureGroups()
        for (index, name) in ["w41-1", "w41-2"].enumerated() {
            groups.add(failed(name, "testkit.crash: plugin testkit, filter crash, item \(name): the helper process crashed", index: index))
        }
        #expect(groups.lines == ["Failed (2):", "  2 × image: testkit.crash: plugin testkit, filter crash, item …: the helper process crashed", "      w41-1, w41-2"])
    }
}
