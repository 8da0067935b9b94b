import Foundation
import WorkbenchCore

/// A preset whose nodes gather every item (a contact sheet), split for the live workbench: the
/// items run without the gathering nodes and what follows them, one by one as the page shows
/// them; once every item is made, one run of the whole preset makes the sheet (its items then
/// up to date, or made again if the sheet needs them).
struct GatheringSplit {
    /// The preset without the gathering nodes and everything downstream of them.
    let itemPreset: Preset
    /// The ids left out of it.
    let gathering: Set<String>

    /// Nil when nothing gathers; throws when the gathering nodes are not all in the preset's
    /// own `graph` (an included filter's), which cannot be left out by id.
    static func of(_ preset: Preset, file: String, registry: OpRegistry) throws -> GatheringSplit? {
        var removed = Set(preset.nodes.filter { node in
            node.inputs.contains { if case .reference(_, true) = $0.slot { true } else { false } }
        }.map(\.id))
        guard !removed.isEmpty else { return nil }
        var grew = true
        while grew {
            grew = false
            for node in preset.nodes where !removed.contains(node.id) && node.inputs.contains(where: { removed.contains($0.node) }) {
                removed.insert(node.id)
                grew = true
            }
        }
        let refusal = ServeError.badPreset("the nodes that gather every item (\(removed.sorted().joined(separator: ", "))) must be written in the preset's own graph to run live; make that file with workbench run")
        guard preset.nodes.filter({ removed.contains($0.id) }).allSatisfy(\.isOwnGraphNode),
              let data = FileManager.default.contents(atPath: file),
              // A file that is not a JSON object cannot be split either: the refusal above says what to do.
              var root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let graph = root["graph"] as? [[String: Any]] else { throw refusal }
        let kept = graph.filter { node in
            guard let id = (node["id"] as? String) ?? (node["op"] as? String) else { return true }
            return !removed.contains(id)
        }
        guard graph.count - kept.count == removed.count else { throw refusal }
        root["graph"] = kept
        let text = try JSONSerialization.data(withJSONObject: root)
        let itemPreset = try PresetLoader(registry: registry).load(json: Array(text), file: file, baseDirectory: preset.baseDirectory)
        return GatheringSplit(itemPreset: itemPreset, gathering: removed)
    }
}

extension NodeSpec {
    /// A node written in the preset's own `graph`, not one from an included filter.
    var isOwnGraphNode: Bool {
        guard path.hasPrefix("graph["), path.hasSuffix("]") else { return false }
        return path.dropFirst(6).dropLast().allSatisfy(\.isNumber)
    }
}
