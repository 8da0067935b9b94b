import Foundation

/// The recipe of every file a run writes, and which files a rerun may leave as they are.
///
/// A file's recipe is the hash of everything it is made from: each node upstream of its
/// `write` (op, parameters — with item variables filled in —, the files parameters name, and
/// how the nodes connect), the versions of workbench, libvips and any plugin involved, and the
/// identity of the item's input. Node ids and queues are left out: renaming a node or moving
/// it to another queue changes no pixel.
public final class RecipeBook: Sendable {
    /// One node's share of a recipe, worked out once per run.
    struct NodeText: Sendable {
        let text: String
        /// Text parameters naming item variables, filled in per item.
        let templated: [(name: String, text: String)]
        /// Reads the item itself (`read` or `download` without a path or URL of their own).
        let isItemSource: Bool
        /// Input slot and upstream node index, in edge order.
        let inputs: [(slot: String, node: Int)]
    }

    /// An item-scope `write`: the files a rerun checks.
    struct Write: Sendable {
        let node: Int
        let id: String
        let template: PathTemplate
        /// The nodes the file is made from, upstream first, with their positions in this list.
        let closure: [Int]
        let position: [Int: Int]
    }

    let nodes: [NodeText]
    let writes: [Write]
    let nodeIndex: [String: Int]
    /// Whether an item whose every file is up to date has nothing else to do (no item feeds a
    /// contact sheet, no item node ends anywhere but in a `write`): only then is its input left unread.
    let wholeItemSkippable: Bool
    let store: ManifestStore
    let force: Bool
    let outputRoot: String
    let base: String
    /// `dependents` and `itemScope` of the graph, for `upToDateNodes`.
    let dependents: [[Int]]
    let itemScope: [Bool]

    init(preset: Preset, versions: [String: String], store: ManifestStore, outputRoot: String, force: Bool) {
        self.store = store
        self.force = force
        self.outputRoot = outputRoot
        base = preset.baseDirectory
        let specs = preset.nodes
        let index = Dictionary(specs.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        nodeIndex = index
        let engine = "workbench \(versions["workbench"] ?? "?") libvips \(versions["libvips"] ?? "?")"
        let nodes: [NodeText] = specs.map { spec in
            var text = "op=\(spec.op.name);\(engine)"
            if spec.op.name.contains("."), let plugin = spec.op.name.split(separator: ".").first, plugin != "vips" {
                text += ";plugin \(plugin) \(versions["plugin \(plugin)"] ?? "?") build \(versions["plugin \(plugin) build"] ?? "?")"
            }
            var templated: [(name: String, text: String)] = []
            for name in spec.parameters.names {
                guard let value = spec.parameters[name] else { continue }
                text += ";\(name)=\(value)"
                let declared = spec.op.parameters.first { $0.name == name }
                if case .string(let raw) = value, case .string? = declared?.type, ItemText.namesVariables(raw) {
                    templated.append((name, raw))
                }
                if case .presetFile? = declared?.type, case .string(let file) = value,
                   let resolved = try? PresetFolder.resolve(file, in: preset.baseDirectory),
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
        self.nodes = nodes
        var dependents = [[Int]](repeating: [], count: specs.count)
        for (n, node) in nodes.enumerated() {
            for input in node.inputs where !dependents[input.node].contains(n) { dependents[input.node].append(n) }
        }
        self.dependents = dependents
        let itemScope = specs.map { $0.scope == .item }
        self.itemScope = itemScope
        writes = specs.indices.compactMap { n -> Write? in
            guard specs[n].op.name == "write", specs[n].scope == .item, let text = specs[n].parameters.string("path"),
                  let template = try? PathTemplate(text) else { return nil }
            var seen: Set<Int> = [n], stack = [n]
            while let next = stack.popLast() {
                for input in nodes[next].inputs where seen.insert(input.node).inserted { stack.append(input.node) }
            }
            let closure = seen.sorted()
            return Write(node: n, id: specs[n].id, template: template, closure: closure,
                         position: Dictionary(uniqueKeysWithValues: closure.enumerated().map { ($1, $0) }))
        }
        let everyWrite = Set(writes.map(\.node))
        let covered = Set(Self.upToDateNodes(fresh: everyWrite, dependents: dependents, itemScope: itemScope))
        wholeItemSkippable = !writes.isEmpty
            && specs.indices.allSatisfy { !itemScope[$0] || covered.contains($0) || nodes[$0].isItemSource }
    }

    /// The item's key in the manifest.
    func key(of item: Item) -> String { item.key(relativeTo: base) }

    /// The recipe of the file `write` node `node` makes for `item`.
    func recipe(write node: Int, item: Item, identity: InputIdentity?) -> String? {
        guard let write = writes.first(where: { $0.node == node }) else { return nil }
        var text = ""
        for (position, n) in write.closure.enumerated() {
            let node = nodes[n]
            text += "[\(position)]" + node.text
            for parameter in node.templated { text += ";\(parameter.name)=" + ItemText.render(parameter.text, for: item) }
            for input in node.inputs { text += ";<\(input.slot):\(write.position[input.node] ?? -1)" }
            if node.isItemSource { text += ";input=" + (identity?.recipeText ?? "none") }
            text += "\n"
        }
        return ContentHash.hex(text)
    }

    /// Which of the item's files are still what this run would make from an input with
    /// `identity`: recorded with the same recipe, and on disk with the recorded size.
    public func freshness(of item: Item, identity: InputIdentity) -> ItemFreshness {
        freshness(of: item, identity: identity, record: force ? nil : store.item(key(of: item)))
    }

    private func freshness(of item: Item, identity: InputIdentity, record: ManifestItem?) -> ItemFreshness {
        guard !force, let record else {
            return ItemFreshness(identity: identity, upToDate: [:], wholeItem: false)
        }
        var upToDate: [String: OutputFile] = [:]
        for write in writes {
            let path = write.template.render(for: item)
            guard let file = record.outputs.first(where: { $0.node == write.id && $0.path == path }),
                  file.recipe != nil, file.recipe == recipe(write: write.node, item: item, identity: identity) else { continue }
            var info = stat()
            guard stat(outputRoot + "/" + path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == file.bytes else { continue }
            upToDate[write.id] = file
        }
        return ItemFreshness(identity: identity, upToDate: upToDate,
                             wholeItem: wholeItemSkippable && upToDate.count == writes.count)
    }

    /// For a local input whose size and modification time are what the manifest recorded: the
    /// freshness under the recorded content, if nothing of the item needs doing (so the file
    /// need not be read at all).
    public func unchangedLocalInput(_ item: Item, size: Int, modifiedNs: Int64) -> ItemFreshness? {
        guard !force, wholeItemSkippable, let record = store.item(key(of: item)), record.identity.content != nil,
              record.identity.size == size, record.identity.modifiedNs == modifiedNs else { return nil }
        let freshness = freshness(of: item, identity: record.identity, record: record)
        return freshness.wholeItem ? freshness : nil
    }

    /// For a remote input: the recorded identity, with the validators for a conditional
    /// request, when a "not modified" answer would leave nothing of the item to do.
    public func conditionalRequest(for item: Item) -> ItemFreshness? {
        guard !force, wholeItemSkippable, let record = store.item(key(of: item)), record.identity.hasValidators else { return nil }
        let freshness = freshness(of: item, identity: record.identity, record: record)
        return freshness.wholeItem ? freshness : nil
    }

    /// The item-scope nodes a run can leave out when the `write` nodes in `fresh` are up to
    /// date: those writes, and every node whose dependents are all left out. Nodes feeding a
    /// run-scope node (a contact sheet) always run. Sorted, upstream first.
    static func upToDateNodes(fresh: Set<Int>, dependents: [[Int]], itemScope: [Bool]) -> [Int] {
        var left = Set<Int>()
        for n in dependents.indices.reversed() where itemScope[n] {
            if fresh.contains(n) {
                left.insert(n)
            } else if !dependents[n].isEmpty && dependents[n].allSatisfy({ left.contains($0) }) {
                left.insert(n)
            }
        }
        return left.sorted()
    }
}
