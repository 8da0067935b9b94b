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
        guard preset.nodes.filter({ removed.contains($0.id) }).allSatisfy(\.isOwnGraphNode) else { throw refusal }
        var loader = PresetLoader(registry: registry)
        loader.leavingOut = removed
        let itemPreset = try loader.load(file: file)
        guard itemPreset.nodes.count == preset.nodes.count - removed.count else { throw refusal }
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
