import Foundation
import WorkbenchCore

/// What `workbench filters` shows: every op of a registry, as text for people and as stable JSON
/// for editors and the preset JSON Schema.
struct FilterCatalogue {
    let registry: OpRegistry

    /// Built-in stages move data in and out; filters map images to images; `vips.*` are libvips'
    /// own operations; plugins will add `<plugin>.<filter>`.
    static func group(of spec: OpSpec) -> String {
        if spec.name.hasPrefix("vips.") { return "libvips" }
        return spec.input == .image && spec.output == .image ? "filter" : "stage"
    }

    static let groups = [("stage", "Built-in stages"), ("filter", "Filters"), ("libvips", "libvips operations")]

    /// One line per op, grouped.
    func listing() -> String {
        var lines: [String] = []
        for (group, title) in Self.groups {
            let specs = registry.specs.filter { Self.group(of: $0) == group }
            guard !specs.isEmpty else { continue }
            lines.append("\(title) (\(specs.count)):")
            let width = min(28, specs.map(\.name.count).max() ?? 0)
            for spec in specs {
                let name = spec.name.padding(toLength: max(width, spec.name.count), withPad: " ", startingAt: 0)
                lines.append("  \(name)  \(Self.flow(spec))  \(spec.summary)" + (spec.isDeprecated ? " (deprecated)" : ""))
            }
            lines.append("")
        }
        lines += policy()
        lines.append("\"workbench filters NAME\" shows an op's parameters.")
        return lines.joined(separator: "\n")
    }

    /// The safety policy as it applies here: what is not offered and why, what is confined.
    private func policy() -> [String] {
        var lines: [String] = []
        let unavailable = registry.unavailable
        if !unavailable.isEmpty {
            lines.append("Not offered (\(unavailable.count)): a preset may not run programs, touch file descriptors or write anywhere but through \"write\".")
            var byReason: [(reason: String, names: [String])] = []
            for entry in unavailable {
                // Streams are many and alike: one line for all of them.
                var reason = entry.reason.contains("libvips stream") ? "it reads or writes a libvips stream; use the *_buffer form or decode/encode" : entry.reason
                // "(or vips.pngsave_buffer)" differs per saver; the listing groups them.
                if let open = reason.range(of: " (or vips."), let close = reason[open.upperBound...].firstIndex(of: ")") {
                    reason.removeSubrange(open.lowerBound...close)
                }
                if let i = byReason.firstIndex(where: { $0.reason == reason }) { byReason[i].names.append(entry.name) } else { byReason.append((reason, [entry.name])) }
            }
            for (reason, names) in byReason {
                let shown = names.count > 6 ? names.prefix(5).joined(separator: ", ") + ", … (\(names.count))" : names.joined(separator: ", ")
                lines.append("  \(shown): \(reason)")
            }
        }
        let confined = registry.specs.filter { spec in spec.parameters.contains { if case .presetFile = $0.type { return true } else { return false } } }
        if !confined.isEmpty {
            lines.append("Confined (\(confined.count)): these read the files they name only inside the preset's folder (no absolute paths, no \"..\", symbolic links followed):")
            lines.append("  " + confined.map(\.name).joined(separator: ", "))
        }
        lines.append("")
        return lines
    }

    /// Everything about one op.
    func detail(_ spec: OpSpec) -> String {
        var lines = ["\(spec.name) — \(spec.summary)", "  \(Self.flow(spec)), queue \(spec.defaultQueue)"]
        if spec.isDeprecated { lines.append("  Deprecated: it still works, but may be removed.") }
        if spec.parameters.isEmpty { lines.append("  No parameters.") }
        for parameter in spec.parameters {
            var head = "  \(parameter.name)"
            if !parameter.aliases.isEmpty { head += " (or \(parameter.aliases.joined(separator: ", ")))" }
            head += ": \(parameter.type.summary)"
            if parameter.isRequired { head += ", required" }
            if let value = parameter.defaultValue { head += ", default \(value)" }
            if parameter.isDeprecated { head += ", deprecated" }
            lines.append(head)
            if !parameter.summary.isEmpty { lines.append("      \(parameter.summary)") }
        }
        return lines.joined(separator: "\n")
    }

    /// What the op reads and makes: its input, or for an op without one the references it
    /// must be given (`picture`: files; `pictures`: every item's file), else the item itself.
    static func flow(_ spec: OpSpec) -> String {
        var from = spec.input?.rawValue ?? "item"
        if spec.input == nil {
            for parameter in spec.parameters where parameter.isRequired {
                if case .references(let kind) = parameter.type { from = kind.rawValue + "s"; break }
                if case .fanIn(let kind) = parameter.type { from = "every item's " + kind.rawValue; break }
            }
        }
        return "\(from) → \(spec.output.rawValue)"
    }

    /// The stable JSON form: keys sorted, ops by name.
    func json(_ specs: [OpSpec], includeUnavailable: Bool) throws -> String {
        var root: [String: Any] = ["filters": specs.map(Self.object)]
        if includeUnavailable {
            root["unavailable"] = registry.unavailable.map { ["name": $0.name, "reason": $0.reason] }
        }
        let data = try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    private static func object(_ spec: OpSpec) -> [String: Any] {
        [
            "name": spec.name, "summary": spec.summary, "group": group(of: spec),
            "input": spec.input?.rawValue ?? NSNull(), "output": spec.output.rawValue,
            "queue": spec.defaultQueue, "deprecated": spec.isDeprecated,
            "parameters": spec.parameters.map { parameter -> [String: Any] in
                var object: [String: Any] = [
                    "name": parameter.name, "type": parameter.type.listing, "required": parameter.isRequired,
                    "summary": parameter.summary, "deprecated": parameter.isDeprecated,
                ]
                if !parameter.aliases.isEmpty { object["aliases"] = parameter.aliases }
                if let value = parameter.defaultValue { object["default"] = json(value) }
                return object
            },
        ]
    }

    /// A value as JSONSerialization takes it, read from the one JSON form of a value.
    private static func json(_ value: ParameterValue) -> Any {
        // jsonText is JSON we wrote ourselves; NSNull only if a value could ever not be.
        (try? JSONSerialization.jsonObject(with: Data(value.jsonText.utf8), options: .fragmentsAllowed)) ?? NSNull()
    }
}
