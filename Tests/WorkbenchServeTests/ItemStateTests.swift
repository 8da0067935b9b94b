import Testing
@testable import WorkbenchServe

/// The page's script knows exactly the states the server sends.
@Suite struct ItemStateTests {
    @Test func theScriptListsEveryStateAndTheirLabels() {
        let script = ItemState.script
        for state in ItemState.allCases { #expect(script.contains("\(state.rawValue): \"\(state.rawValue)\""), "\(state)") }
        #expect(script.contains("upToDate: \"up to date\""))
        #expect(ItemState.allCases.filter(\.showsOutputs) == [.done, .upToDate, .stale])
        #expect(ItemState.working(on: "decode") == .decoding && ItemState.working(on: "vips.gaussblur") == .filtering)
        #expect(ItemState.workingSelector.split(separator: ",").count == 6)
        // The page embeds it.
        #expect(Page.html(token: "t").contains(script))
    }
}
