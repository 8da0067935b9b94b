import Foundation
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// Loads and runs presets with every op of the core and libvips modules, on real files.
struct PresetHarness {
    static let registry = OpRegistry(CoreOps.all + VipsOps.all, unavailable: VipsOperationOps.unavailable)

    let folder: URL

    init(_ label: String) throws {
        folder = try Fixtures.temporaryDirectory(label)
    }

    func load(_ json: String) throws(WorkbenchError) -> Preset {
        try PresetLoader(registry: Self.registry).load(json: Array(json.utf8), file: "test.json", baseDirectory: folder.path)
    }

    /// The problems a preset is refused for (empty if it loads).
    func errors(_ json: String) -> [String] {
        do {
            _ = try load(json)
            return []
        } catch {
            return error.description.split(separator: "\n").map(String.init)
        }
    }

    /// Runs a preset over `inputs` (paths); returns the summary and each item's report.
    func run(_ json: String, inputs: [String], workers: Int? = nil, output: String = "out") async throws -> (RunSummary, [ItemReport]) {
        let preset = try load(json)
        let items = try InputExpansion.expand(inputs, relativeTo: folder.path)
        let output = try OutputRoot(folder.appendingPathComponent(output).path)
        let run = PresetRun.start(preset, items: .list(items), output: output, options: RunOptions(workers: workers))
        var reports: [ItemReport] = []
        for await event in run.events {
            if case .itemFinished(let report) = event { reports.append(report) }
        }
        return (await run.result, reports)
    }

    func output(_ name: String) -> URL { folder.appendingPathComponent("out").appendingPathComponent(name) }

    /// Copies a bundled sample photo into the folder.
    @discardableResult
    func sample(_ name: String) throws -> String {
        let destination = folder.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: destination.path) {
            try FileManager.default.copyItem(at: Fixtures.samples.appendingPathComponent(name), to: destination)
        }
        return destination.path
    }
}

extension PresetHarness {
    /// A valid value of a parameter's type, as JSON; references point at the nodes of `preset(for:)`.
    static func sampleValue(_ type: ParameterType) -> String {
        switch type {
        case .bool: return "true"
        case .int(let r): return String(min(max(r.lowerBound, 1), r.upperBound))
        case .double(let r): return String(min(max(r.lowerBound, 1), r.upperBound))
        case .string, .pathTemplate, .presetFile: return "\"x\""
        case .choice(let words), .flags(let words): return "\"\(words[0])\""
        case .reference(.bytes): return "\"@source\""
        case .reference, .imageOrMatrix: return "\"@image\""
        case .fanIn: return "\"@image[*]\""
        case .references: return "[\"@image\", \"@image\"]"
        case .integers: return "[1]"
        case .numbers: return "[1, 2]"
        case .colour: return "[10, 20, 30]"
        case .matrix: return "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]"
        case .anyOf(let types): return sampleValue(types[0])
        case .stringMap: return "{\"a\": \"b\"}"
        case .options(let fields): return fields.first.map { "{\"\($0.name)\": \(sampleValue($0.type))}" } ?? "{}"
        }
    }

    /// read → decode → the op, with only its required parameters (or `override` for one of them).
    static func preset(for spec: OpSpec, override: (name: String, json: String)? = nil) -> String {
        var members = ["\"id\": \"op\"", "\"op\": \"\(spec.name)\""]
        switch spec.input {
        case .image: members.append("\"from\": \"image\"")
        case .bytes: members.append("\"from\": \"source\"")
        default: break
        }
        for parameter in spec.parameters where parameter.isRequired && parameter.name != override?.name {
            members.append("\"\(parameter.name)\": \(sampleValue(parameter.type))")
        }
        if let override { members.append("\"\(override.name)\": \(override.json)") }
        return """
            {"version": 1, "graph": [{"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
              {\(members.joined(separator: ", "))}]}
            """
    }
}
