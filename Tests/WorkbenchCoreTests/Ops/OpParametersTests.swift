import Testing
@testable import WorkbenchCore

/// Parameters bound to fields: the declaration's default is the field's, validation's values
/// land in the fields, and a value of another type leaves the default.
@Suite struct OpParametersTests {
    struct Sample: OpParameters {
        enum Mode: String, CaseIterable, Sendable { case soft, hard }
        var size: Int?
        var level = 3
        var gain = 1.5
        var mode = Mode.hard
        var on = true
        var label: String?
        var pairs: [(name: String, value: String)] = []

        static let bindings: [ParameterBinding<Self>] = [
            .int("size", \.size, 1...100, "A size."),
            .int("level", \.level, 0...9, "A level.", .init(aliases: ["lvl"])),
            .double("gain", \.gain, 0...4, "A gain."),
            .choice("mode", \.mode, "A mode."),
            .bool("on", \.on, "On."),
            .string("label", \.label, "A label.", .init(required: true)),
            .stringMap("pairs", \.pairs, "Pairs."),
        ]
    }

    @Test func declarationsTakeTheirDefaultsFromTheFields() {
        let specs = Dictionary(uniqueKeysWithValues: Sample.specs.map { ($0.name, $0) })
        #expect(Sample.specs.map(\.name) == ["size", "level", "gain", "mode", "on", "label", "pairs"])
        #expect(specs["size"]?.defaultValue == nil && specs["size"]?.type == .int(1...100))
        #expect(specs["level"]?.defaultValue == .int(3) && specs["level"]?.aliases == ["lvl"])
        #expect(specs["gain"]?.defaultValue == .double(1.5))
        #expect(specs["mode"]?.defaultValue == .string("hard") && specs["mode"]?.type == .choice(["soft", "hard"]))
        #expect(specs["on"]?.defaultValue == .bool(true))
        #expect(specs["label"]?.isRequired == true && specs["label"]?.defaultValue == nil)
        #expect(specs["pairs"]?.defaultValue == nil && specs["pairs"]?.type == .stringMap)
    }

    @Test func valuesLandInTheirFields() {
        let p = Sample(ParameterValues(["size": .int(7), "level": .double(5), "gain": .int(2), "mode": .string("soft"), "on": .bool(false),
                                        "label": .string("x"), "pairs": .list([.list([.string("a"), .string("b")])])]))
        #expect(p.size == 7 && p.level == 5 && p.gain == 2 && p.mode == .soft && !p.on && p.label == "x")
        #expect(p.pairs.map(\.name) == ["a"] && p.pairs.map(\.value) == ["b"])
    }

    @Test func aValueOfAnotherTypeOrAnUnknownWordLeavesTheDefault() {
        let p = Sample(ParameterValues(["level": .string("high"), "mode": .string("medium"), "gain": .bool(true), "size": .double(2.5)]))
        #expect(p.level == 3 && p.mode == .hard && p.gain == 1.5 && p.size == nil)
    }
}
