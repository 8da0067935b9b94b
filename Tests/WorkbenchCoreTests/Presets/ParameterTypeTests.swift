import Foundation
import Testing
@testable import WorkbenchCore

/// One declaration of parameter types: the words, controls, schema and JSON every consumer reads.
@Suite struct ParameterTypeTests {
    static let every: [ParameterType] = [
        .bool, .int(0...9), .double(0...1), .string, .choice(["a", "b"]), .pathTemplate, .presetFile(builtins: ["srgb"]),
        .reference(.image), .fanIn(.image), .references(.image), .imageOrMatrix, .matrix, .flags(["x", "y"]),
        .integers, .numbers, .colour, .anyOf([.bool, .string]), .stringMap,
    ]

    @Test func everyTypeHasItsOwnWordAndTheDeclarableOnesReadBack() {
        #expect(Set(Self.every.map(\.name)).count == Self.every.count)
        for name in ParameterType.declarable {
            let type = ParameterType.declared(name, min: 0, max: 5, integerBounds: 0...5, choices: ["soft", "hard"])
            #expect(type?.name == name, "\(name)")
        }
        #expect(ParameterType.declared("bool", min: nil, max: nil, integerBounds: 0...1, choices: nil) == nil)
        #expect(ParameterType.declared("choice", min: nil, max: nil, integerBounds: 0...1, choices: nil) == nil)
    }

    @Test func aTypeListsAndDescribesItselfAsValidJSON() throws {
        for type in Self.every {
            let listing = try JSONSerialization.data(withJSONObject: type.listing as [String: Any])
            let schema = try JSONSerialization.data(withJSONObject: type.jsonSchema as [String: Any])
            #expect(!listing.isEmpty && !schema.isEmpty)
            #expect(type.listing["kind"] as? String == type.name)
        }
        #expect(ParameterType.int(1...9).listing["max"] as? Int == 9)
        #expect(ParameterType.double(-.infinity...2).listing["min"] == nil)
    }

    @Test func aColourIsCheckedAndWrittenAsNumbers() {
        let collector = DiagnosticCollector(file: "p.json")
        let colour = ParameterType.colour.coerce(.array([.number(255, isInteger: true, .init(line: 1, column: 1)),
                                                         .number(0.5, isInteger: false, .init(line: 1, column: 1))], .init(line: 1, column: 1)),
                                                 path: "graph[0].colour", collector)
        #expect(colour == .list([.double(255), .double(0.5)]) && colour?.jsonText == "[255.0, 0.5]")
        #expect(ParameterType.colour.coerce(.string("red", .init(line: 1, column: 1)), path: "graph[0].colour", collector) == nil)
        #expect(collector.hasErrors)
        #expect(ParameterValue.string("a \"b\"/c").jsonText == #""a \"b\"/c""#)
    }
}
