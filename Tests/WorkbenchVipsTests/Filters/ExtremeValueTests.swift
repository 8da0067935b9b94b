import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// No number a preset can hold crashes a run: every numeric, list, colour and matrix parameter
/// of every built-in op, given values far outside any sense (±2^64, ±1e300, −1, strings that
/// look like numbers), is either refused by validation or runs to an item that succeeds or
/// fails. A trap (a Double too large for Int32 in a kernel) ends this test process, and the
/// suite with it.
@Suite struct ExtremeValueTests {
    static let extremes = ["18446744073709551616", "-18446744073709551616", "1e300", "-1e300", "-1", "0", "1e400", "\"NaN\"", "\"-inf\""]

    /// The value written as the parameter's type takes it: lists of the number for lists and
    /// colours, a 3×3 of it for matrices.
    static func written(_ number: String, as type: ParameterType) -> [String] {
        switch type {
        case .int, .double: return [number]
        case .numbers, .integers: return [number, "[\(number), 1]"]
        case .colour: return [number, "[\(number), 20, 30]", "[10, 20, \(number)]", "[\(number), \(number), \(number), \(number)]"]
        case .matrix, .imageOrMatrix:
            return ["[[\(number), 0, 0], [0, 1, 0], [0, 0, 1]]", "[[\(number), \(number), \(number)], [\(number), \(number), \(number)], [\(number), \(number), \(number)]]"]
        case .anyOf(let types): return types.flatMap { written(number, as: $0) }
        default: return []
        }
    }

    /// read → decode → the op → encode → write, so that the op's pixels are computed.
    static func preset(for spec: OpSpec, name: String, json: String) -> String {
        var members = ["\"id\": \"op\"", "\"op\": \"\(spec.name)\""]
        switch spec.input {
        case .image: members.append("\"from\": \"image\"")
        case .bytes: members.append("\"from\": \"source\"")
        default: break
        }
        for parameter in spec.parameters where parameter.isRequired && parameter.name != name {
            members.append("\"\(parameter.name)\": \(PresetHarness.sampleValue(parameter.type))")
        }
        members.append("\"\(name)\": \(json)")
        var graph = ["{\"id\": \"source\", \"op\": \"read\"}", "{\"id\": \"image\", \"op\": \"decode\"}", "{\(members.joined(separator: ", "))}"]
        if spec.output == .image {
            graph += ["{\"id\": \"png\", \"op\": \"encode\", \"from\": \"op\", \"format\": \"png\"}", "{\"id\": \"save\", \"op\": \"write\", \"path\": \"{name}.png\"}"]
        } else if spec.output == .bytes {
            graph += ["{\"id\": \"save\", \"op\": \"write\", \"from\": \"op\", \"path\": \"{name}.out\"}"]
        }
        return "{\"version\": 1, \"output\": \"out\", \"graph\": [\(graph.joined(separator: ", "))]}"
    }

    @Test func noNumberCrashesABuiltInOp() async throws {
        let harness = try PresetHarness("extreme-values")
        let photo = harness.folder.appendingPathComponent("small.jpg").path
        _ = try Fixtures.vips(["thumbnail", Fixtures.samples.appendingPathComponent("Bridge.jpg").path, photo, "48"])
        let specs = VipsOps.all.map(\.spec).filter { !$0.name.hasPrefix("vips.") && $0.name != "decode" }
        #expect(specs.count >= 30)
        var refused = 0, ran = 0
        var outOfRange: [String] = []
        for spec in specs {
            for parameter in spec.parameters {
                for number in Self.extremes {
                    for json in Self.written(number, as: parameter.type) {
                        let text = Self.preset(for: spec, name: parameter.name, json: json)
                        guard let preset = try? harness.load(text) else {
                            refused += 1
                            continue
                        }
                        // What validation let through lies inside the type's declared bounds.
                        if let value = preset.nodes.first(where: { $0.id == "op" })?.parameters[parameter.name],
                           !parameter.type.accepts(value) {
                            outOfRange.append("\(spec.name).\(parameter.name) = \(json)")
                        }
                        let (summary, _) = try await harness.run(text, inputs: [photo])
                        #expect(summary.succeeded + summary.failed == 1, "\(spec.name).\(parameter.name) = \(json)")
                        ran += 1
                    }
                }
            }
        }
        #expect(outOfRange.isEmpty, "\(outOfRange)")
        #expect(refused > 100 && ran > 10, "refused \(refused), ran \(ran)")
    }

    @Test func coloursOfTheColourFiltersLieOnZeroTo255() throws {
        let harness = try PresetHarness("colour-bounds")
        for (op, key) in [("tint", "colour"), ("duotone", "shadows"), ("duotone", "highlights")] {
            let json = """
                {"version": 1, "graph": [{"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
                  {"id": "t", "op": "\(op)", "\(key)": [300, -20, 1000]}]}
                """
            let errors = harness.errors(json).joined(separator: "\n")
            #expect(errors.contains("graph[2].\(key): \(op): \"\(key)\" takes red, green and blue from 0 to 255, not 300"), "\(errors)")
            let huge = json.replacingOccurrences(of: "300", with: "18446744073709551616")
            #expect(harness.errors(huge).joined().contains("between −1e9 and 1e9"), "\(harness.errors(huge))")
        }
    }
}
