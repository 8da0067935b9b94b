/// Incremental runs in the scheduler: leaving out what is up to date. Runs with the lock held.
extension RunEngine {
    /// The node that read the item's input says which of its files are up to date: those
    /// `write`s, and every node that only feeds them, end as `upToDate` without running.
    func leaveOut(_ freshness: ItemFreshness, slot s: Int) {
        slots[s].identity = freshness.identity
        guard let recipes, !freshness.upToDate.isEmpty else { return }
        var fresh = Set<Int>()
        for (id, file) in freshness.upToDate {
            guard let n = recipes.nodeIndex[id] else { continue }
            fresh.insert(n)
            slots[s].upToDate.append(file)
        }
        for n in RecipeBook.upToDateNodes(fresh: fresh, dependents: recipes.dependents, itemScope: recipes.itemScope) {
            let id = s * nodeCount + n
            guard instances[id].state == .pending || instances[id].state == .ready else { continue }
            // The reading node has not settled yet, so the item cannot end (and its slot be
            // reused) while these settle.
            mark(id, .upToDate)
            settle(id)
        }
    }

    /// A written file with its recipe, for the manifest.
    func withRecipe(_ file: OutputFile, node n: Int, slot s: Int) -> OutputFile {
        guard let recipes, let item = slots[s].item else { return file }
        var file = file
        file.recipe = recipes.recipe(write: n, item: item, identity: slots[s].identity)
        return file
    }
}
