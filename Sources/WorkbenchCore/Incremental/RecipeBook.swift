import Foundation

/// The recipe of every file a run writes, and which files a rerun may leave as they are.
///
/// A file's recipe is the hash of everything it is made from: each node upstream of its
/// `write` (op, parameters — with item variables filled in —, the files parameters name, and
/// how the nodes connect), the versions of workbench, libvips and any plugin involved, and the
/// identity of the item's input. Node ids and queues are left out: renaming a node or moving
/// it to another queue changes no pixel.
public final class RecipeBook: InputHistory {
    /// An item-scope `write`: the files a rerun checks.
    struct Write: Sendable {
        let node: Int
        let id: String
        let template: PathTemplate
        /// The nodes the file is made from, upstream first, with their positions in this list.
        let closure: (nodes: [Int], position: [Int: Int])
    }

    let recipes: NodeRecipes
    let writes: [Write]
    var nodeIndex: [String: Int] { recipes.nodeIndex }
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

    /// How an up-to-date file is known to be still there with its recorded size.
    enum Presence: Sendable {
        /// In the output folder (`stat`).
        case onDisk
        /// In the bucket's listing of the output prefix, read as the run goes.
        case listed(any OutputListing)
        /// The manifest's word alone (`--trust-manifest`).
        case recorded
    }

    let presence: Presence

    init(preset: Preset, versions: [String: String], store: ManifestStore, outputRoot: String, force: Bool, presence: Presence = .onDisk) {
        self.presence = presence
        self.store = store
        self.force = force
        self.outputRoot = outputRoot
        base = preset.baseDirectory
        let specs = preset.nodes
        let recipes = NodeRecipes(nodes: specs, baseDirectory: preset.baseDirectory, versions: versions)
        self.recipes = recipes
        let nodes = recipes.nodes
        var dependents = [[Int]](repeating: [], count: specs.count)
        for (n, node) in nodes.enumerated() {
            for input in node.inputs where !dependents[input.node].contains(n) { dependents[input.node].append(n) }
        }
        self.dependents = dependents
        let itemScope = specs.map { $0.scope == .item }
        self.itemScope = itemScope
        writes = specs.indices.compactMap { n -> Write? in
            guard specs[n].op.name == "write", specs[n].scope == .item, let text = specs[n].parameters.string("path"),
                  // Validation parsed every path template already; one that fails here is not an
                  // incremental write.
                  let template = try? PathTemplate(text) else { return nil }
            return Write(node: n, id: specs[n].id, template: template, closure: recipes.closure(of: n))
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
        let text = recipes.text(of: write.closure, item: item, input: identity?.recipeText ?? "none")
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
            // A copy not made has no file to look at; its recipe alone says it is still not made.
            switch file.notMade != nil ? .recorded : presence {
            case .onDisk:
                var info = stat()
                guard stat(outputRoot + "/" + path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == file.bytes else { continue }
            case .listed(let inventory):
                // One listing for the whole prefix, not a request per file.
                guard inventory.size(of: path) == file.bytes else { continue }
            case .recorded:
                break
            }
            upToDate[write.id] = file
        }
        return ItemFreshness(identity: identity, upToDate: upToDate,
                             wholeItem: wholeItemSkippable && upToDate.count == writes.count)
    }

    /// For a local input whose size and modification time are what the manifest recorded: the
    /// freshness under the recorded content, if nothing of the item needs doing (so the file
    /// need not be read at all).
    public func unchangedLocalInput(_ item: Item, size: Int, modifiedNs: Int64) -> InputIdentity? {
        guard !force, wholeItemSkippable, let record = store.item(key(of: item)), record.identity.content != nil,
              record.identity.size == size, record.identity.modifiedNs == modifiedNs else { return nil }
        return freshness(of: item, identity: record.identity, record: record).wholeItem ? record.identity : nil
    }

    /// For a remote input: the recorded identity, with the validators for a conditional
    /// request, when a "not modified" answer would leave nothing of the item to do.
    public func conditionalRequest(for item: Item) -> InputIdentity? {
        guard !force, wholeItemSkippable, let record = store.item(key(of: item)), record.identity.hasValidators else { return nil }
        return freshness(of: item, identity: record.identity, record: record).wholeItem ? record.identity : nil
    }

    /// What an item's run leaves out, as its input's reader found it: the files up to date,
    /// and the nodes that end `upToDate` without running (`upToDateNodes`).
    func leftOut(_ freshness: ItemFreshness) -> (files: [OutputFile], nodes: [Int]) {
        let known = freshness.upToDate.compactMap { entry in nodeIndex[entry.key].map { ($0, entry.value) } }
        guard !known.isEmpty else { return ([], []) }
        return (known.map(\.1), Self.upToDateNodes(fresh: Set(known.map(\.0)), dependents: dependents, itemScope: itemScope))
    }

    /// The item-scope nodes a run can leave out when the `write` nodes in `fresh` are up to
    /// date: those writes, and every node whose dependents are all left out. Nodes feeding a
    /// run-scope node (a contact sheet) always run. Sorted by index.
    ///
    /// File order is not upstream-first once the planner has rewired the graph (a srcset's
    /// 480 px resize reads the 960 px one, declared after it), so the walk repeats until
    /// nothing more can be left out; each pass in reverse file order settles most graphs in one.
    static func upToDateNodes(fresh: Set<Int>, dependents: [[Int]], itemScope: [Bool]) -> [Int] {
        var left = fresh.filter { itemScope[$0] }
        var changed = true
        while changed {
            changed = false
            for n in dependents.indices.reversed() where itemScope[n] && !left.contains(n) {
                if !dependents[n].isEmpty && dependents[n].allSatisfy({ left.contains($0) }) {
                    left.insert(n)
                    changed = true
                }
            }
        }
        return left.sorted()
    }
}
