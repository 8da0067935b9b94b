import Foundation
import WorkbenchCore

/// The page's controls, made from what each op declares: one panel per node as written in the
/// preset's graph, one control per parameter that a control can set (numbers, integers,
/// switches, choices, colours and other number lists, matrices). Paths, templates, references
/// and file names are never offered: those stay in the editor.
///
/// A node written with `"foreach"` has one panel for all its copies: a control changes the
/// written node (every copy), except for a parameter written as a repetition variable
/// (`"width": "{w}"`), which has a control per copy, and a change to it changes that copy's
/// value in the `foreach` list.
struct NodeControls: Sendable {
    struct Control: Sendable {
        let name: String
        /// The parameter type's name (`ParameterType.name`).
        let type: String
        /// How the page shows it (`ParameterType.control`).
        let control: ParameterControl
        let min: Double?
        let max: Double?
        let choices: [String]?
        let summary: String
        /// The value now, as JSON text: what the file or the page's unsaved change says.
        let value: String
        /// Changed on the page and not saved yet.
        let changed: Bool
        /// The node a change goes to when it is one copy, not the panel's node; and which copy.
        var node: String? = nil
        var copy: String? = nil
        /// The slider's track, when it has one (`Slider`).
        var slider: Slider? = nil
        /// What applies while the preset leaves the parameter unset, as JSON (the declared
        /// default), or nil when the op decides.
        var unset: String? = nil
    }

    /// A slider over the useful part of a parameter's range: around its default and the value
    /// it has, not the whole declared range (saturation's 0…10 would put 0…2 in a fifth of the
    /// track). A factor (default 1, nothing below 0: brightness, saturation) moves linearly
    /// from its low end to 1 in the left half and geometrically from 1 to its high end in the
    /// right, so 1 sits in the middle and halving and doubling are the same distance. The
    /// number field beside it takes the whole range.
    struct Slider: Sendable, Equatable {
        let low: Double
        let high: Double
        let centre: Double?

        static func over(_ range: ClosedRange<Double>, integer: Bool, factor: Bool, default value: Double?, current: Double?) -> Slider? {
            let reference = max(abs(value ?? 0), abs(current ?? 0))
            if !integer, factor || value == 1, range.lowerBound >= 0, range.upperBound > 1, range.lowerBound < 1 {
                let high = min(range.upperBound, max(4, (current ?? 1) * 1.5))
                return Slider(low: range.lowerBound, high: high, centre: 1)
            }
            // Tight enough already (0…1, -100…100 around 0, an integer within 1000).
            let span = range.upperBound - range.lowerBound
            // Nothing to go by (unset, no default): an integer of a huge range is most often a
            // size in pixels, for which 0…20 would be no help.
            let near = max(4 * reference, integer ? (reference == 0 ? 1000 : 20) : 4)
            if span <= 2.5 * near { return integer && span > 1000 ? nil : Slider(low: range.lowerBound, high: range.upperBound, centre: nil) }
            // A size of hundreds of pixels (a thumbnail's 1920): half to twice it, the value in the
            // middle, so a short drag is a small change (0…4× put 1920 at a quarter of the track,
            // and 30 px of drag made it 3019).
            if integer, let current, current >= 256, range.contains(current / 2), range.contains(current * 2) {
                return Slider(low: (current / 2).rounded(), high: current * 2, centre: current)
            }
            let high = min(range.upperBound, max(near, (current ?? 0) * 1.5))
            let low = max(range.lowerBound, range.lowerBound < 0 ? -high : range.lowerBound)
            return Slider(low: low, high: high, centre: nil)
        }
    }

    let node: String
    let op: String
    /// The copies the written node makes (empty when it is not repeated).
    var copies: [String] = []
    let controls: [Control]

    /// The page's JSON for `nodes` (written by hand: values are JSON text already).
    static func json(_ nodes: [NodeControls]) -> String {
        func quoted(_ text: String) -> String { ParameterValue.string(text).jsonText }
        func number(_ value: Double?) -> String { value.map { $0.isFinite ? String($0) : "null" } ?? "null" }
        let panels = nodes.map { panel in
            let controls = panel.controls.map { c in
                "{\"name\": \(quoted(c.name)), \"type\": \(quoted(c.type)), \"control\": \(quoted(c.control.rawValue)), \"min\": \(number(c.min)), \"max\": \(number(c.max)), "
                    + "\"choices\": \(c.choices.map { "[" + $0.map(quoted).joined(separator: ", ") + "]" } ?? "null"), "
                    + "\"summary\": \(quoted(c.summary)), \"value\": \(c.value), \"changed\": \(c.changed), "
                    + "\"node\": \(c.node.map(quoted) ?? "null"), \"copy\": \(c.copy.map(quoted) ?? "null"), "
                    + "\"slider\": \(c.slider.map { "{\"low\": \(number($0.low)), \"high\": \(number($0.high)), \"centre\": \(number($0.centre))}" } ?? "null"), "
                    + "\"unset\": \(c.unset ?? "null")}"
            }
            return "{\"node\": \(quoted(panel.node)), \"op\": \(quoted(panel.op)), "
                + "\"copies\": [" + panel.copies.map(quoted).joined(separator: ", ") + "], "
                + "\"controls\": [" + controls.joined(separator: ", ") + "]}"
        }
        return "[" + panels.joined(separator: ",\n") + "]"
    }
}

/// Making the controls of a preset.
enum Controls {
    /// The controls of `preset`'s own graph nodes, with `draft`'s unsaved values.
    static func of(_ preset: Preset, draft: [PresetOverride]) -> [NodeControls] {
        written(preset).compactMap { group in
            let first = group.copies[0]
            let repeated = first.copy != nil
            let controls = first.op.parameters.flatMap { spec -> [NodeControls.Control] in
                // How a kernel runs (`engine`) is not how the picture looks.
                guard let kind = spec.type.control, spec.name != "engine" else { return [] }
                func control(_ node: NodeSpec, target: String, copy: String?) -> NodeControls.Control {
                    let unsaved = draft.last { $0.node == target && $0.key == spec.name }
                    let current = node.parameters[spec.name] ?? spec.defaultValue
                    let value = unsaved?.value ?? current.map(\.jsonText) ?? "null"
                    let range = spec.type.bounds
                    let slider = range.flatMap { r in
                        NodeControls.Slider.over(r, integer: spec.type.name == "integer", factor: spec.isFactor, default: spec.defaultValue?.number,
                                                 current: Double(value) ?? current?.number)
                    }
                    return NodeControls.Control(name: spec.name, type: spec.type.name, control: kind,
                                                min: range.map(\.lowerBound), max: range.map(\.upperBound), choices: spec.type.words, summary: spec.summary, value: value, changed: unsaved != nil,
                                                node: copy == nil ? nil : target, copy: copy, slider: slider,
                                                unset: spec.defaultValue.map(\.jsonText))
                }
                // Written as a variable: a control per value of it (`fmt = webp`), which is what
                // Save changes in the foreach list; it reaches every copy made with that value.
                if let variable = first.copy?.variableParameters[spec.name] {
                    var seen: [String] = []
                    return group.copies.compactMap { copy in
                        guard let value = copy.copy?.values.first(where: { $0.name == variable }), !seen.contains(value.json) else { return nil }
                        seen.append(value.json)
                        let sharing = group.copies.count { $0.copy?.values.contains(value) == true }
                        let label = "\(variable) = \(NodeCopy.text(of: value.json))" + (sharing > 1 ? ", \(sharing) copies" : "")
                        return control(copy, target: copy.id, copy: label)
                    }
                }
                // A value that differs between copies without being one variable ("© {w}") is the editor's.
                if repeated, Set(group.copies.map { $0.parameters[spec.name]?.jsonText ?? "" }).count > 1 { return [] }
                return [control(first, target: group.id, copy: nil)]
            }
            // An op with many options (encode knows every format's) shows those the preset sets;
            // a block's fields (below) show only when the block is set, so always.
            let shown = (controls.count <= 12 ? controls : controls.filter { control in
                guard let spec = first.op.parameters.first(where: { $0.name == control.name }) else { return false }
                return control.changed || spec.defaultValue == nil || first.parameters[spec.name].map { $0 != spec.defaultValue } ?? false
            }) + (sameBlocks(group.copies) ? blockFields(first, target: group.id, draft: draft) : [])
            guard !shown.isEmpty else { return nil }
            return NodeControls(node: group.id, op: first.op.name, copies: repeated ? group.copies.map(\.id) : [], controls: shown)
        }
    }

    /// A slider for each number the node's blocks of options hold (`"target": {"ssimulacra2":
    /// 80}`, `"avif": {"Q": 55}`), named `block.field`: a change sets the whole block, with that
    /// field changed (`blockChange`).
    static func blockFields(_ node: NodeSpec, target: String, draft: [PresetOverride]) -> [NodeControls.Control] {
        node.op.parameters.flatMap { spec -> [NodeControls.Control] in
            guard case .options(let fields) = spec.type, let written = node.parameters[spec.name] else { return [] }
            let unsaved = draft.last { $0.node == target && $0.key == spec.name }
            let values = current(written, unsaved: unsaved)
            return written.pairs.compactMap { pair -> NodeControls.Control? in
                guard let field = fields.first(where: { $0.name == pair.name }), field.type.control == .slider,
                      let range = field.type.bounds, let value = values[pair.name] else { return nil }
                let slider = NodeControls.Slider.over(range, integer: field.type.name == "integer", factor: false, default: nil, current: Double(value))
                return NodeControls.Control(name: "\(spec.name).\(pair.name)", type: field.type.name, control: .slider,
                                            min: range.lowerBound, max: range.upperBound, choices: nil,
                                            summary: "\"\(pair.name)\" in \"\(spec.name)\": " + spec.summary, value: value,
                                            changed: unsaved != nil, slider: slider)
            }
        }
    }

    /// Whether every copy holds the same blocks (a block written per copy is the editor's).
    private static func sameBlocks(_ copies: [NodeSpec]) -> Bool {
        let blocks = copies[0].op.parameters.filter { if case .options = $0.type { return true } else { return false } }.map(\.name)
        return blocks.allSatisfy { name in Set(copies.map { $0.parameters[name]?.jsonText ?? "" }).count == 1 }
    }

    /// A block's fields as JSON texts: the page's unsaved block if there is one, else the file's.
    private static func current(_ written: ParameterValue, unsaved: PresetOverride?) -> [String: String] {
        unsaved.flatMap { blockValues($0.value) } ?? Dictionary(written.pairs.map { ($0.name, $0.value.jsonText) }, uniquingKeysWith: { $1 })
    }

    /// A block's fields as JSON texts, from its JSON object text.
    static func blockValues(_ json: String) -> [String: String]? {
        // The draft's own JSON, which the loader has already parsed: nil only for a value the
        // page never stored, and then the file's block is shown.
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        return object.compactMapValues { value in
            // A number or a string from that object: it always serialises; a field that would not is left out.
            (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// A change to one field of a block (`target.ssimulacra2` = 85) as the change to the whole
    /// block the loader and Save take: the block as the draft or the file has it, that field set.
    static func blockChange(_ preset: Preset, node: String, key: String, json: String, draft: [PresetOverride]) -> (key: String, json: String)? {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let spec = preset.nodes.first(where: { $0.id == node || $0.copy?.declaredID == node }),
              let written = spec.parameters[parts[0]] else { return nil }
        var order = written.pairs.map(\.name)
        var values = current(written, unsaved: draft.last { $0.node == node && $0.key == parts[0] })
        if values[parts[1]] == nil { order.append(parts[1]) }
        values[parts[1]] = json
        let members = order.compactMap { name in values[name].map { "\(ParameterValue.string(name).jsonText): \($0)" } }
        return (parts[0], "{" + members.joined(separator: ", ") + "}")
    }

    /// The tunable nodes grouped by the node they were written as, in the graph's order.
    static func written(_ preset: Preset) -> [(id: String, copies: [NodeSpec])] {
        var groups: [(id: String, copies: [NodeSpec])] = []
        for node in preset.nodes where node.isTunable {
            let id = node.copy?.declaredID ?? node.id
            if let index = groups.firstIndex(where: { $0.id == id }) { groups[index].copies.append(node) } else { groups.append((id, [node])) }
        }
        return groups
    }

    /// Whether the page may set `key` on `node`: a parameter it shows a control for — on the
    /// written node, or on one copy when the parameter is written as a repetition variable.
    static func offers(_ preset: Preset, node: String, key: String) -> Bool {
        // Any copy made with a value stands for that value (the page sends the first one).
        if let copy = preset.nodes.first(where: { $0.id == node && $0.isTunable }), copy.copy?.variableParameters[key] != nil,
           let spec = copy.op.parameters.first(where: { $0.name == key }) {
            return spec.type.control != nil
        }
        return of(preset, draft: []).contains { panel in
            panel.controls.contains { $0.name == key && ($0.node ?? panel.node) == node }
        }
    }

    /// The loader's overrides for the page's changes: a change made on one copy to a parameter
    /// written as a variable reaches every copy made with the same value of it, as the saved
    /// change to the foreach list will.
    static func overrides(_ draft: [PresetOverride], in preset: Preset) -> [PresetOverride] {
        draft.flatMap { change -> [PresetOverride] in
            guard let value = repetitionValue(preset, node: change.node, key: change.key),
                  let written = preset.nodes.first(where: { $0.id == change.node })?.copy?.declaredID else { return [change] }
            return preset.nodes.filter { $0.copy?.declaredID == written && $0.copy?.values.contains(value) == true }
                .compactMap { PresetOverride("\($0.id).\(change.key)=\(change.value)") }
        }
    }

    /// What `save` writes for a change to one copy: the copy's value in its `foreach` list.
    static func repetitionValue(_ preset: Preset, node: String, key: String) -> NodeCopy.Value? {
        guard let copy = preset.nodes.first(where: { $0.id == node })?.copy,
              let variable = copy.variableParameters[key] else { return nil }
        return copy.values.first { $0.name == variable }
    }
}

extension NodeSpec {
    /// A node written in the preset's own `graph` (not one from an included filter), or a copy
    /// of one, whose values a control can change in the file, that works on an image or makes
    /// one: a filter, an encoder, a generator such as a watermark's `vips.text` (reading,
    /// decoding and writing have nothing to tune by eye).
    var isTunable: Bool { (op.input == .image || (op.input == nil && op.output == .image)) && isOwnGraphNode }
}
