import Foundation

/// Each node's share of a recipe, and the recipe text of a node and everything upstream of it:
/// what `RecipeBook` hashes for a written file and what a `ResultCache` keeps a result under.
///
/// A node's text is its op, its parameters (with item variables filled in per item), the
/// content of the files parameters name, how it connects, and the versions of workbench,
/// libvips and its plugin. Node ids and queues are left out: renaming a node or moving it to
/// another queue changes no pixel.
struct NodeRecipes: Sendable {
    struct NodeText: Sendable {
        let text: String
        /// Text parameters naming item variables, filled in per item.
        let templated: [(name: String, text: String)]
        /// Reads the item itself (`read` or `download` without a path or URL of their own).
        let isItemSource: Bool
        /// Input slot and upstream node index, in edge order.
        let inputs: [(slot: String, node: Int)]
    }

    let nodes: [NodeText]
    let nodeIndex: [String: Int]

    init(nodes specs: [NodeSpec], baseDirectory: String, versions: [String: String]) {
        let index = Dictionary(specs.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        nodeIndex = index
        let engine = "workbench \(versions["workbench"] ?? "?") libvips \(versions["libvips"] ?? "?")"
        nodes = specs.map { spec in
            var text = "op=\(spec.op.name);\(engine)"
            if spec.op.name.contains("."), let plugin = spec.op.name.split(separator: ".").first, plugin != "vips" {
                text += ";plugin \(plugin) \(versions["plugin \(plugin)"] ?? "?") build \(versions["plugin \(plugin) build"] ?? "?")"
            }
            var templated: [(name: String, text: String)] = []
            for name in spec.parameters.names {
                guard let value = spec.parameters[name] else { continue }
                let declared = spec.op.parameters.first { $0.name == name }
                if let declared, declared.recipeOmitsDefault, value == declared.defaultValue { continue }
                text += ";\(declared?.recipeName ?? name)=\(value)"
                if case .string(let raw) = value, case .string? = declared?.type, ItemText.namesVariables(raw) {
                    templated.append((name, raw))
                }
                if case .presetFile? = declared?.type, case .string(let file) = value,
                   // A preset file that no longer resolves adds nothing to the recipe: its node fails
                   // on its own, with the path, when it runs.
                   let resolved = try? PresetFolder.resolve(file, in: baseDirectory),
                   let data = FileManager.default.contents(atPath: resolved) {
                    text += ";file(\(name))=" + ContentHash.hex(data)
                }
            }
            let isSource = spec.scope == .item && spec.op.sourceParameter.map { spec.parameters[$0] == nil } == true
            let inputs = spec.inputs.compactMap { input -> (slot: String, node: Int)? in
                guard let u = index[input.node] else { return nil }
                switch input.slot {
                case .from(let i): return ("from\(i)", u)
                case .reference(let name, let fanIn): return (fanIn ? "\(name)[*]" : name, u)
                }
            }
            return NodeText(text: text, templated: templated, isItemSource: isSource, inputs: inputs)
        }
    }

    /// Node `n` and every node upstream of it, upstream first, with their positions in that list.
    func closure(of n: Int) -> (nodes: [Int], position: [Int: Int]) {
        var seen: Set<Int> = [n], stack = [n]
        while let next = stack.popLast() {
            for input in nodes[next].inputs where seen.insert(input.node).inserted { stack.append(input.node) }
        }
        let sorted = seen.sorted()
        return (sorted, Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($1, $0) }))
    }

    /// The recipe text of the nodes of `closure` for `item`, whose input is described by `input`.
    func text(of closure: (nodes: [Int], position: [Int: Int]), item: Item, input: String) -> String {
        var text = ""
        for (position, n) in closure.nodes.enumerated() {
            let node = nodes[n]
            text += "[\(position)]" + node.text
            for parameter in node.templated { text += ";\(parameter.name)=" + ItemText.render(parameter.text, for: item) }
            for edge in node.inputs { text += ";<\(edge.slot):\(closure.position[edge.node] ?? -1)" }
            if node.isItemSource { text += ";input=" + input }
            text += "\n"
        }
        return text
    }
}
