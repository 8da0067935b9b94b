import Foundation
import Testing
@testable import WorkbenchCore

/// Saving a changed value rewrites that value's bytes and nothing else.
@Suite struct PresetEditTests {
    let preset = """
        {
          "version": 1,
          "graph": [
            { "id": "source", "op": "read" },
            {   "id" : "tone",  "op": "sepia", "intensity":0.8 , "note": "a \\"quoted\\" [text]" },
            { "op": "recomb", "matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }
          ]
        }

        """

    private func edit(_ key: String, _ json: String, _ node: String, _ text: String? = nil) throws -> String {
        String(decoding: try PresetEdit.setting(key, to: json, node: node, in: Array((text ?? preset).utf8)), as: UTF8.self)
    }

    @Test func aValueIsReplacedInPlace() throws {
        let edited = try edit("intensity", "0.6", "tone")
        #expect(edited == preset.replacingOccurrences(of: "\"intensity\":0.8 ,", with: "\"intensity\":0.6 ,"))
    }

    @Test func stringsWithEscapesAndBracketsAndArraysAreReplacedWhole() throws {
        #expect(try edit("note", "\"plain\"", "tone") == preset.replacingOccurrences(of: "\"a \\\"quoted\\\" [text]\"", with: "\"plain\""))
        let matrix = try edit("matrix", "[[0, 1, 0], [1, 0, 0], [0, 0, 1]]", "recomb")
        #expect(matrix == preset.replacingOccurrences(of: "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]", with: "[[0, 1, 0], [1, 0, 0], [0, 0, 1]]"))
    }

    @Test func anAbsentKeyIsAddedAfterTheNodesLastMember() throws {
        let edited = try edit("intensity", "0.5", "source")
        #expect(edited == preset.replacingOccurrences(of: "\"op\": \"read\" }", with: "\"op\": \"read\", \"intensity\": 0.5 }"))
    }

    @Test func oneCopysValueIsChangedInItsForeachList() throws {
        let text = """
            { "version": 1, "graph": [ { "op": "read" },
              { "id": "small", "op": "thumbnail", "width": "{w}", "foreach": { "w": [ 480, 960 ,1920] } } ] }
            """
        let edited = String(decoding: try PresetEdit.settingRepetitionValue("w", index: 1, to: "1000", node: "small", in: Array(text.utf8)), as: UTF8.self)
        #expect(edited == text.replacingOccurrences(of: "960 ,", with: "1000 ,"))
        #expect(throws: WorkbenchError.self) { try PresetEdit.settingRepetitionValue("w", index: 3, to: "1", node: "small", in: Array(text.utf8)) }
        #expect(throws: WorkbenchError.self) { try PresetEdit.settingRepetitionValue("h", index: 0, to: "1", node: "small", in: Array(text.utf8)) }
    }

    @Test func aMissingNodeOrBrokenTextIsRefused() throws {
        #expect(throws: WorkbenchError.self) { try edit("x", "1", "nowhere") }
        #expect(throws: WorkbenchError.self) { try edit("x", "1", "tone", "{ \"graph\": [ ") }
    }

    @Test func aByteOrderMarkStays() throws {
        let marked = "\u{FEFF}" + preset
        let edited = try edit("intensity", "0.6", "tone", marked)
        #expect(edited == marked.replacingOccurrences(of: "\"intensity\":0.8 ,", with: "\"intensity\":0.6 ,"))
    }
}

/// `"pixels": true` in a parameter declaration: taken on numbers, refused elsewhere.
@Suite struct PixelDeclarationTests {
    @Test func numbersMayBeLengthsInPixelsAndNothingElseMay() throws {
        let text = #"{"name": "r", "type": "integer", "min": 1, "max": 99, "default": 3, "pixels": true, "summary": "R."}"#
        let wrong = #"{"name": "s", "type": "string", "default": "", "pixels": true, "summary": "S."}"#
        let problems = TestOps.diagnostics("""
            {"version": 1, "filters": {"f": {"parameters": [\(text), \(wrong)], "graph": [{"op": "test.work", "ms": 0}]}},
             "graph": [{"op": "read"}, {"op": "f"}, {"op": "write", "path": "x"}]}
            """)
        #expect(problems.count == 1 && problems[0].contains("parameters[1].pixels: \"pixels\" is true or false, on an \"integer\" or \"number\""), "\(problems)")
        let fine = ParameterDeclarations(collector: DiagnosticCollector(file: "t.json")).parameter(
            try JSONParser.parse(Array(text.utf8)), path: "p")
        #expect(fine?.measuresPixels == true)
    }
}
