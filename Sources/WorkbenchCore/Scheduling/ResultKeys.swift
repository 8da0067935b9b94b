/// The keys a run files its results under in a `ResultCache`: each node's recipe text, for the
/// nodes within the cache's reach whose recipe is known before they run.
struct ResultKeys: Sendable {
    private let recipes: NodeRecipes
    /// Per node, its closure, or nil when its result is never kept: a `write`, a node gathering
    /// every item or made from one, or a node outside the cache's reach.
    private let closures: [(nodes: [Int], position: [Int: Int])?]

    init(plan: RunPlan, baseDirectory: String, reach: ResultCache.Reach) {
        let specs = plan.nodes.map(\.spec)
        let recipes = NodeRecipes(nodes: specs, baseDirectory: baseDirectory, versions: [:])
        self.recipes = recipes
        var gathers = [Bool](repeating: false, count: specs.count)
        // Nodes arrive upstream first.
        for (n, node) in plan.nodes.enumerated() {
            gathers[n] = node.inputs.contains { $0.isFanIn || gathers[$0.node] }
        }
        closures = specs.indices.map { n in
            guard !gathers[n], specs[n].op.name != "write", reach == .everyNode || specs[n].scope == .run else { return nil }
            return recipes.closure(of: n)
        }
    }

    /// Whether node `n`'s results are kept.
    func keeps(_ n: Int) -> Bool { closures[n] != nil }

    /// The key of node `n`'s result for `item`.
    func key(of n: Int, item: Item) -> String? {
        guard let closure = closures[n] else { return nil }
        return recipes.text(of: closure, item: item, input: item.source)
    }
}
