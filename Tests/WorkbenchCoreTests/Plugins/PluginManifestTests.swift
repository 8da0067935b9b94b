import Foundation
import Testing
import WorkbenchTestSupport
@testable import WorkbenchCore

/// `plugin.json` is read strictly: every problem is reported at once with its JSON path and
/// line, and a good manifest gives filters with their parameters.
@Suite struct PluginManifestTests {
    private func manifest(_ json: String) throws -> PluginManifest {
        let folder = try Fixtures.temporaryDirectory("manifest")
        try json.write(to: folder.appendingPathComponent("plugin.json"), atomically: true, encoding: .utf8)
        return try PluginManifest.read(folder: folder.path)
    }

    private func problems(_ json: String) -> String {
        do {
            _ = try manifest(json)
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func aGoodManifestGivesItsFiltersAndParameters() throws {
        let plugin = try manifest(#"""
            { "name": "filmlab", "version": "1.2.0", "api": 1, "library": "libFilmLab.so",
              "filters": [
                { "name": "fade", "summary": "Lifts the blacks.",
                  "parameters": [ { "name": "amount", "type": "number", "min": 0, "max": 1, "default": 0.3, "summary": "How far." } ] },
                { "name": "look", "summary": "Fade then sepia.",
                  "graph": [ { "id": "f", "op": "filmlab.fade" }, { "id": "s", "op": "sepia" } ] } ] }
            """#)
        #expect(plugin.name == "filmlab" && plugin.version == "1.2.0" && plugin.api == 1)
        #expect(plugin.libraryPath.hasSuffix("/libFilmLab.so"))
        #expect(plugin.filters.map(\.name) == ["fade", "look"])
        #expect(plugin.filters[0].parameters.map(\.name) == ["amount"] && plugin.filters[0].graph == nil)
        #expect(plugin.filters[1].graph?.count == 2)
    }

    @Test func everyProblemIsReportedWithWhereItIs() {
        let text = problems(#"""
            { "name": "vips", "version": "1", "api": "one", "library": "../lib.so", "colour": true,
              "filters": [
                { "name": "a", "summary": "", "parameters": [ { "name": "isolation", "type": "number" } ] },
                { "name": "a", "summary": "" },
                { "name": "b", "summary": "", "graph": [ { "id": "x" } ] } ] }
            """#)
        for words in ["\"vips\" is reserved", "api: expected an integer", "a file name in the plugin's folder", "colour",
                      "is declared twice", "a second filter named \"a\"", "filters[2].graph[0]", "plugin.json:1:"] {
            #expect(text.contains(words), "missing \(words) in:\n\(text)")
        }
    }

    @Test func aMissingOrBrokenFileSaysSo() throws {
        let empty = try Fixtures.temporaryDirectory("manifest")
        let missing = #expect(throws: WorkbenchError.self) { try PluginManifest.read(folder: empty.path) }
        #expect(missing.map { "\($0)" }?.contains("no plugin.json in the plugin's folder") == true)
        #expect(problems(#"{ "name": "x", "#).contains("invalid JSON"))
        #expect(problems("[]").contains("must be a JSON object"))
        #expect(problems(#"{ "name": "x", "version": "1", "api": 1, "library": "l.so", "filters": [] }"#).contains("at least one filter"))
    }
}
