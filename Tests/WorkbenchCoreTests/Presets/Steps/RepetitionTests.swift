import Foundation
import Testing
@testable import WorkbenchCore

/// `"foreach"`: nodes repeated over values, and everything downstream with them.
@Suite struct RepetitionTests {
    @Test func aRepeatedNodeAndItsDownstreamNodesMultiply() throws {
        let preset = try TestOps.load("""
            {"version": 1, "inputs": ["a.jpg"],
             "graph": [{"op": "read"},
                       {"id": "size", "op": "test.work", "ms": "{w}", "label": "w={w}", "foreach": {"w": [1, 2, 3]}},
                       {"id": "kind", "op": "test.work", "ms": 0, "label": "{w}/{fmt}", "foreach": {"fmt": ["a", "b"]}},
                       {"op": "write", "path": "{name}-{w}.{fmt}"}]}
            """)
        #expect(preset.nodes.map(\.id) == ["read", "size-1", "size-2", "size-3",
                                           "kind-1-a", "kind-1-b", "kind-2-a", "kind-2-b", "kind-3-a", "kind-3-b",
                                           "write-1-a", "write-1-b", "write-2-a", "write-2-b", "write-3-a", "write-3-b"])
        let size2 = try #require(preset.nodes.first { $0.id == "size-2" })
        #expect(size2.parameters.int("ms") == 2)              // "{w}" alone keeps the number
        #expect(size2.parameters.string("label") == "w=2")     // inside text, replaced as text
        let kind = try #require(preset.nodes.first { $0.id == "kind-3-b" })
        #expect(kind.from == ["size-3"] && kind.parameters.string("label") == "3/b")
        let write = try #require(preset.nodes.first { $0.id == "write-2-a" })
        #expect(write.from == ["kind-2-a"] && write.parameters.string("path") == "{name}-2.a")
    }

    @Test func idsWithVariablesAndExplicitEdgesFollowTheCopies() throws {
        let preset = try TestOps.load("""
            {"version": 1, "inputs": ["a.jpg"],
             "graph": [{"op": "read"},
                       {"id": "w{w}", "op": "test.work", "ms": 0, "foreach": {"w": [10, 20]}},
                       {"id": "other", "op": "test.work", "ms": 0, "from": "read"},
                       {"id": "out", "op": "write", "from": "w{w}", "path": "{name}-{w}"}]}
            """)
        #expect(preset.nodes.map(\.id) == ["read", "w10", "w20", "other", "out-10", "out-20"])
        #expect(preset.nodes.first { $0.id == "out-20" }?.from == ["w20"])
        #expect(preset.nodes.first { $0.id == "other" }?.from == ["read"])
    }

    static let sizes = """
        {"version": 1, "inputs": ["a.jpg"],
         "graph": [{"op": "read"},
                   {"id": "size", "op": "test.work", "ms": "{w}", "label": "fixed", "foreach": {"w": [1, 2]}},
                   {"id": "kind", "op": "test.work", "ms": 0, "label": "{fmt}", "foreach": {"fmt": ["a", "b"]}},
                   {"op": "write", "path": "{name}-{w}.{fmt}"}]}
        """

    @Test func setTakesTheIdsValidatePrintsAndTheWrittenOne() throws {
        func load(_ sets: [String]) throws -> Preset {
            try PresetLoader(registry: TestOps.registry()).load(json: Array(Self.sizes.utf8), file: "test.json", baseDirectory: "/tmp",
                                                                 overrides: sets.compactMap(PresetOverride.init))
        }
        func label(_ preset: Preset, _ id: String) -> String? { preset.nodes.first { $0.id == id }?.parameters.string("label") }
        func ms(_ preset: Preset, _ id: String) -> Int? { preset.nodes.first { $0.id == id }?.parameters.int("ms") }
        // One copy, by the id `validate` prints: only that copy changes.
        let one = try load(["kind-2-b.ms=5"])
        #expect(ms(one, "kind-2-b") == 5 && ms(one, "kind-2-a") == 0 && ms(one, "kind-1-b") == 0)
        // A parameter written as the repetition variable is that value in the `foreach` list,
        // which also names the copies and their files: it changes there, as the page's Save does,
        // for every copy made with it, and the copies and paths follow (never 7 ms in "size-1").
        let moved = try load(["kind-2-b.label=only", "size-1.ms=7"])
        #expect(moved.nodes.map(\.id) == ["read", "size-7", "size-2", "kind-7-a", "kind-7-only", "kind-2-a", "kind-2-only",
                                          "write-7-a", "write-7-only", "write-2-a", "write-2-only"])
        #expect(ms(moved, "size-7") == 7 && ms(moved, "size-2") == 2 && label(moved, "kind-2-only") == "only")
        #expect(moved.nodes.first { $0.id == "write-7-only" }?.parameters.string("path") == "{name}-7.only")
        #expect(moved.warnings.map(\.description).contains {
            $0.contains("--set size-1.ms=7") && $0.contains("w = 1 becomes 7 there, and every copy made with it is renamed with its files")
        }, "\(moved.warnings)")
        // The written node: every copy; a copy's own value goes over it.
        let all = try load(["size.label=every", "size-2.label=two"])
        #expect(label(all, "size-1") == "every" && label(all, "size-2") == "two")
        // A name that is neither lists the ids there are.
        do {
            _ = try load(["kind-9-b.label=x"])
            Issue.record("an unknown copy was taken")
        } catch {
            #expect("\(error)".contains("--set kind-9-b.label=x") && "\(error)".contains("kind-1-b") && "\(error)".contains("no node \"kind-9-b\""), "\(error)")
            #expect("\(error)".contains("or, for every copy, a node as written: size, kind, write"), "\(error)")
        }
        // A copy's value is still checked by its parameter's rules.
        #expect(throws: WorkbenchError.self) { try load(["size-1.ms=-5"]) }
    }

    @Test func aCopyKnowsItsWrittenNodeItsValuesAndItsVariableParameters() throws {
        let preset = try TestOps.load(Self.sizes)
        let copy = try #require(preset.nodes.first { $0.id == "kind-2-b" }?.copy)
        #expect(copy.declaredID == "kind" && copy.label == "w = 2, fmt = b")
        #expect(copy.values == [.init(name: "w", json: "2", declaredBy: "size", index: 1), .init(name: "fmt", json: "\"b\"", declaredBy: "kind", index: 1)])
        #expect(copy.variableParameters == ["label": "fmt"])
        #expect(preset.nodes.first { $0.id == "size-1" }?.copy?.variableParameters == ["ms": "w"])
        #expect(preset.nodes.first { $0.id == "read" }?.copy == nil)
    }

    @Test func mistakesInARepetitionAreReportedOnceWithTheirPlace() {
        let text = """
            {"version": 1, "inputs": ["a.jpg"],
             "graph": [{"op": "read"},
                       {"id": "s", "op": "test.work", "ms": "{w}", "foreach": {"w": [1, "x", "y"]}},
                       {"id": "t", "op": "test.work", "ms": 0, "foreach": {"w": [5]}},
                       {"id": "u", "op": "test.work", "ms": 0, "foreach": [1, 2]},
                       {"id": "v", "op": "test.work", "ms": 0, "foreach": {"name": [1]}},
                       {"op": "write", "path": "{name}-{size}"}]}
            """
        let diagnostics = TestOps.diagnostics(text)
        #expect(diagnostics.contains(#"test.json:3:49: error: graph[1].ms: expected an integer 0…60000, found "x""#), "\(diagnostics)")
        #expect(diagnostics.contains { $0.hasPrefix("test.json:4:") && $0.contains("\"w\" already repeats upstream of this node") })
        #expect(diagnostics.contains { $0.hasPrefix("test.json:5:") && $0.contains("\"foreach\" takes an object of names to lists") })
        #expect(diagnostics.contains { $0.hasPrefix("test.json:6:") && $0.contains("\"name\" cannot name a repetition") })
        #expect(diagnostics.contains { $0.contains("unknown variable {size}") && $0.contains("\"foreach\"") })
        #expect(Set(diagnostics).count == diagnostics.count)
    }
}

/// Inputs from folder trees: `**`, hidden files, `{dir}`.
@Suite struct TreeInputTests {
    @Test func recursiveGlobsMirrorTheTreeAndSkipHiddenFiles() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tree-\(UUID().uuidString.prefix(8))")
        for file in ["top.jpg", "2024/rome/a.jpg", "2024/rome/b.png", "2024/c.jpg", ".cache/d.jpg", "2024/.e.jpg", "old/.git/f.jpg"] {
            let url = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data([1]).write(to: url)
        }
        let matches = TreeGlob(root.path + "/**/*.jpg").matches()
        #expect(matches.map { String($0.path.dropFirst(root.path.count + 1)) } == ["2024/c.jpg", "2024/rome/a.jpg", "top.jpg"])
        #expect(matches.map(\.directory) == ["2024", "2024/rome", ""])
        #expect(TreeGlob(root.path + "/*/.e.jpg").matches().count == 1)   // asked for by name
        #expect(TreeGlob(root.path + "/.cache/*.jpg").matches().count == 1)
        let template = try PathTemplate("{dir}/{name}.webp")
        #expect(template.render(for: Item(index: 0, source: matches[1].path, directory: matches[1].directory)) == "2024/rome/a.webp")
        #expect(template.render(for: Item(index: 0, source: matches[2].path, directory: "")) == "top.webp")
        // A folder name can never climb out of the output root.
        #expect(template.render(for: Item(index: 0, source: "x.jpg", directory: "../up")) == "__/up/x.webp")
    }
}

/// A preset's own filters: named sub-graphs with declared parameters.
@Suite struct PresetFilterTests {
    private let text = """
        {"version": 1, "inputs": ["a.jpg"],
         "filters": {"twice": {"summary": "Two steps.",
                               "parameters": [{"name": "ms", "type": "integer", "min": 0, "max": 50, "default": 3, "summary": "Work."}],
                               "graph": [{"id": "one", "op": "test.work", "ms": "{ms}"},
                                         {"id": "two", "op": "test.work", "ms": 0, "label": "after {ms}"}]}},
         "graph": [{"op": "read"}, {"id": "t", "op": "twice", "ms": 7}, {"op": "write", "path": "{name}"}]}
        """

    @Test func aFilterBecomesItsNodesWithItsParameters() throws {
        let preset = try TestOps.load(text)
        #expect(preset.nodes.map(\.id) == ["read", "t.one", "t.two", "write"])
        #expect(preset.nodes[1].from == ["read"] && preset.nodes[1].parameters.int("ms") == 7)
        #expect(preset.nodes[2].from == ["t.one"] && preset.nodes[2].parameters.string("label") == "after 7")
        #expect(preset.nodes[3].from == ["t.two"])      // what reads "t" reads its last node
        #expect(preset.filters.map(\.name) == ["twice"] && preset.filters[0].parameters.map(\.name) == ["ms"])
        let defaults = try TestOps.load(text.replacingOccurrences(of: #""op": "twice", "ms": 7"#, with: #""op": "twice""#))
        #expect(defaults.nodes[1].parameters.int("ms") == 3)
    }

    @Test func wrongValuesAndUnknownKeysAreReportedAtTheUse() {
        let diagnostics = TestOps.diagnostics(text.replacingOccurrences(of: #""ms": 7"#, with: #""ms": 70, "mz": 1"#))
        #expect(diagnostics.contains { $0.contains("graph[1].ms: expected an integer 0…50, found 70") }, "\(diagnostics)")
        #expect(diagnostics.contains { $0.contains("unknown key \"mz\" in the filter \"twice\"; did you mean \"ms\"?") }, "\(diagnostics)")
        let clash = TestOps.diagnostics(text.replacingOccurrences(of: #""twice": {"summary""#, with: #""read": {"summary""#))
        #expect(clash.contains { $0.contains("\"read\" is already an op") }, "\(clash)")
    }
}

/// `"include"`: files of filters shared by presets.
@Suite struct FilterIncludeTests {
    @Test func includedFiltersAreUsableAndTheirMistakesStayInTheirFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("include-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(#"{"filters": {"slow": {"parameters": [], "graph": [{"op": "test.work", "ms": 1}]}}}"#.utf8)
            .write(to: folder.appendingPathComponent("looks.json"))
        try Data(#"{"filters": {"bad": {"graph": [{"op": "test.work"}], "parameters": [{"name": "x", "type": "nmber", "default": 1}]}}}"#.utf8)
            .write(to: folder.appendingPathComponent("broken.json"))
        let loader = PresetLoader(registry: TestOps.registry())
        let text = #"{"version": 1, "inputs": ["a"], "include": ["looks.json"], "graph": [{"op": "read"}, {"id": "s", "op": "slow"}, {"op": "write", "path": "{name}"}]}"#
        let preset = try loader.load(json: Array(text.utf8), file: "p.json", baseDirectory: folder.path)
        #expect(preset.nodes.map(\.id) == ["read", "s.test.work", "write"])
        do {
            _ = try loader.load(json: Array(text.replacingOccurrences(of: "looks.json", with: "broken.json").utf8), file: "p.json", baseDirectory: folder.path)
            Issue.record("a broken include was accepted")
        } catch {
            guard case .invalidPreset(let diagnostics) = error else { throw error }
            #expect(diagnostics.contains { $0.description.hasPrefix("p.json:1:45: error: include[0]: the included file has a problem: \(folder.path)/broken.json:1:") && $0.description.contains("unknown type \"nmber\"") },
                    "\(diagnostics)")
        }
    }
}
