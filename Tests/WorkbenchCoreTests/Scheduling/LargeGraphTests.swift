import Testing
@testable import WorkbenchCore

/// Validation stays linear in the graph's size (timings: bench/validation.sh), and diagnostics
/// stay short whatever the preset holds.
@Suite struct LargeGraphTests {
    private func chain(_ count: Int, cycle: Bool = false) -> String {
        var nodes = [#"{"id": "n0", "op": "read"}"#]
        for i in 1..<count { nodes.append(#"{"id": "n\#(i)", "op": "test.work"}"#) }
        if cycle { nodes[1] = #"{"id": "n1", "op": "test.work", "from": "n\#(count - 1)"}"# }
        return #"{"version": 1, "graph": ["# + nodes.joined(separator: ",") + "]}"
    }

    @Test func tenThousandNodesKeepTheirOrder() throws {
        let preset = try TestOps.load(chain(10_000))
        #expect(preset.nodes.count == 10_000)
        #expect(preset.nodes.map(\.id) == (0..<10_000).map { "n\($0)" })
    }

    @Test func branchesAreOrderedUpstreamFirstAndStableInFileOrder() throws {
        let preset = try TestOps.load(#"""
            {"version": 1, "graph": [{"id": "late", "op": "test.work", "from": "mid"}, {"id": "src", "op": "read"},
              {"id": "mid", "op": "test.work", "from": "src"}, {"id": "other", "op": "test.work", "from": "src"}]}
            """#)
        #expect(preset.nodes.map(\.id) == ["src", "mid", "late", "other"])
    }

    @Test func aCycleInALargeGraphNamesAFewOfItsNodes() {
        let diagnostics = TestOps.diagnostics(chain(5_000, cycle: true))
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.contains("the graph has a cycle through \"n1\", \"n2\"") == true)
        #expect(diagnostics.first?.hasSuffix(", … (4999 nodes)") == true, "\(diagnostics)")
    }

    @Test func anAbsurdlyLongNameGetsNoSuggestion() {
        let name = String(repeating: "x", count: 1_000_000)
        let diagnostics = TestOps.diagnostics(#"{"version": 1, "graph": [{"op": "\#(name)"}]}"#)
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.contains("did you mean") == false)
        #expect(diagnostics.first?.contains("\"\(name.prefix(40))…\" (1000000 characters)") == true)
        #expect((diagnostics.first?.count ?? .max) < 400)
        #expect(DidYouMean.suggestion(for: "test.wrok", among: ["test.work", "read"]) == "test.work")
        #expect(DidYouMean.suggestion(for: "w", among: ["test.work", "read"]) == nil)
    }
}
