import Testing
@testable import WorkbenchCore

@Suite struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    @Test func parsesValuesWithPositions() throws {
        let value = try parse("{\n  \"a\": [1, 2.5, -3e2, true, null, \"x\\u00e9\\ud83d\\ude00\\n\"]\n}")
        guard case .array(let list, let location)? = value["a"] else { Issue.record("no array"); return }
        #expect(location == SourceLocation(line: 2, column: 8))
        #expect(list.count == 6)
        if case .number(let n, let isInteger, _) = list[2] { #expect(n == -300 && !isInteger) }
        #expect(list[5].stringValue == "xé😀\n")
    }

    @Test func refusesWhatJSONForbids() {
        for text in ["{\"a\": 01}", "[1,]", "{\"a\" 1}", "\"\u{01}\"", "[tru]", "1 2", "", "[\"\\x\"]", "[1e]"] {
            #expect(throws: JSONParser.SyntaxError.self, "\(text)") { try parse(text) }
        }
        #expect(throws: JSONParser.SyntaxError.self) { try parse(String(repeating: "[", count: 600)) }
    }
}
