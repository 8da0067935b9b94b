import Foundation
import WorkbenchCore

/// The page's controls, made from what each op declares: one panel per node of the preset's
/// graph, one control per parameter that a control can set (numbers, integers, switches,
/// choices, colours and other number lists, matrices). Paths, templates, references and file
/// names are never offered: those stay in the editor.
struct NodeControls: Sendable {
    struct Control: Sendable {
        let name: String
        /// number, integer, boolean, choice, string, numbers, matrix
        let type: String
        let min: Double?
        let max: Double?
        let choices: [String]?
        let summary: String
        /// The value now, as JSON text: what the file or the page's unsaved change says.
        let value: String
        /// Changed on the page and not saved yet.
        let changed: Bool
    }

    let node: String
    let op: String
    let controls: [Control]

    /// The page's JSON for `nodes` (written by hand: values are JSON text already).
    static func json(_ nodes: [NodeControls]) -> String {
        func quoted(_ text: String) -> String { Controls.json(.string(text)) }
        func number(_ value: Double?) -> String { value.map { $0.isFinite ? String($0) : "null" } ?? "null" }
        let panels = nodes.map { panel in
            let controls = panel.controls.map { c in
                "{\"name\": \(quoted(c.name)), \"type\": \(quoted(c.type)), \"min\": \(number(c.min)), \"max\": \(number(c.max)), "
                    + "\"choices\": \(c.choices.map { "[" + $0.map(quoted).joined(separator: ", ") + "]" } ?? "null"), "
                    + "\"summary\": \(quoted(c.summary)), \"value\": \(c.value), \"changed\": \(c.changed)}"
            }
            return "{\"node\": \(quoted(panel.node)), \"op\": \(quoted(panel.op)), \"controls\": [" + controls.joined(separator: ", ") + "]}"
        }
        return "[" + panels.joined(separator: ",\n") + "]"
    }
}

/// Making the controls of a preset.
enum Controls {
    /// The controls of `preset`'s own graph nodes, with `draft`'s unsaved values.
    static func of(_ preset: Preset, draft: [PresetOverride]) -> [NodeControls] {
        preset.nodes.filter(\.isTunable).map { node in
            let controls = node.op.parameters.compactMap { spec -> NodeControls.Control? in
                guard let kind = Self.kind(spec.type) else { return nil }
                let unsaved = draft.last { $0.node == node.id && $0.key == spec.name }
                let current = node.parameters[spec.name] ?? spec.defaultValue
                let value = unsaved?.value ?? current.map(Self.json) ?? "null"
                var range: ClosedRange<Double>?
                if case .int(let r) = spec.type { range = Double(r.lowerBound)...Double(r.upperBound) }
                if case .double(let r) = spec.type { range = r }
                var choices: [String]?
                if case .choice(let words) = spec.type { choices = words }
                return NodeControls.Control(name: spec.name, type: kind, min: range.map(\.lowerBound), max: range.map(\.upperBound),
                                            choices: choices, summary: spec.summary, value: value, changed: unsaved != nil)
            }
            // An op with many options (encode knows every format's) shows those the preset sets.
            let shown = controls.count <= 12 ? controls : controls.filter { control in
                guard let spec = node.op.parameters.first(where: { $0.name == control.name }) else { return false }
                return control.changed || spec.defaultValue == nil || node.parameters[spec.name].map { $0 != spec.defaultValue } ?? false
            }
            return NodeControls(node: node.id, op: node.op.name, controls: shown)
        }.filter { !$0.controls.isEmpty }
    }

    /// Whether the page may set `key` on `node`: a parameter it shows a control for.
    static func offers(_ preset: Preset, node: String, key: String) -> Bool {
        guard let spec = preset.nodes.first(where: { $0.id == node && $0.isTunable })?.op.parameters
            .first(where: { $0.name == key }) else { return false }
        return kind(spec.type) != nil
    }

    private static func kind(_ type: ParameterType) -> String? {
        switch type {
        case .bool: return "boolean"
        case .int: return "integer"
        case .double: return "number"
        case .choice: return "choice"
        case .string: return "string"
        case .numbers, .integers: return "numbers"
        case .matrix: return "matrix"
        default: return nil
        }
    }

    /// A value as JSON text.
    static func json(_ value: ParameterValue) -> String {
        switch value {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .string(let s):
            let data = (try? JSONSerialization.data(withJSONObject: s, options: [.fragmentsAllowed, .withoutEscapingSlashes])) ?? Data("\"\"".utf8)
            return String(decoding: data, as: UTF8.self)
        case .list(let items): return "[" + items.map(json).joined(separator: ", ") + "]"
        }
    }
}

extension NodeSpec {
    /// A node written in the preset's own `graph` (not one from an included filter or a
    /// repetition), whose values a control can change in the file, that works on an image: a
    /// filter or an encoder (reading, decoding and writing have nothing to tune by eye).
    var isTunable: Bool { op.input == .image && isOwnGraphNode }
}
