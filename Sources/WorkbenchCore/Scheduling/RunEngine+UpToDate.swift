/// Incremental runs in the scheduler: deciding what is up to date, and leaving it out. `judge`
/// runs outside the lock, the rest with it held.
extension RunEngine {
    /// For the node that read the item's input on an incremental run: which of the item's files
    /// are up to date, decided from the input's identity and the recipe book. On the thread that
    /// ran the body, outside the lock (it reads the manifest and looks at the files).
    func judge(_ job: Job, _ result: Result<Payload, any Error>) -> Result<Payload, any Error> {
        guard let recipes, case .success(let payload) = result else { return result }
        switch payload {
        case .bytes:
            if let identity = job.identity { job.freshness = recipes.freshness(of: job.item, identity: identity) }
        case .unreadInput(let recorded):
            let freshness = recipes.freshness(of: job.item, identity: recorded)
            // A file removed between the stage's look and this one: the input must be read after all.
            guard freshness.wholeItem else { return .failure(SchedulerError.inputChanged(node: plan.nodes[job.node].id)) }
            job.freshness = freshness
        case .image, .file:
            break
        }
        return result
    }

    /// The node that read the item's input says which of its files are up to date: those
    /// `write`s, and every node that only feeds them, end as `upToDate` without running.
    func leaveOut(_ freshness: ItemFreshness, slot s: Int) {
        window.slots[s].identity = freshness.identity
        guard let recipes, !freshness.upToDate.isEmpty else { return }
        var fresh = Set<Int>()
        for (id, file) in freshness.upToDate {
            guard let n = recipes.nodeIndex[id] else { continue }
            fresh.insert(n)
            window.slots[s].upToDate.append(file)
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
        guard let recipes, let item = window.slots[s].item else { return file }
        var file = file
        file.recipe = recipes.recipe(write: n, item: item, identity: window.slots[s].identity)
        return file
    }
}
