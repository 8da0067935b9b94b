/// Incremental runs in the scheduler: leaving out what is up to date (`Job.judged` decides it,
/// outside the lock, and `ItemWindow.record` gives written files their recipes). With the lock held.
extension RunEngine {
    /// The node that read the item's input says which of its files are up to date: those
    /// `write`s, and every node that only feeds them, end as `upToDate` without running.
    func leaveOut(_ freshness: ItemFreshness, slot s: Int) {
        guard let recipes else { return window.leaveOut(s, identity: freshness.identity, upToDate: []) }
        let known = freshness.upToDate.compactMap { entry in recipes.nodeIndex[entry.0].map { ($0, entry.1) } }
        window.leaveOut(s, identity: freshness.identity, upToDate: known.map(\.1))
        let fresh = Set(known.map(\.0))
        guard !fresh.isEmpty else { return }
        for n in RecipeBook.upToDateNodes(fresh: fresh, dependents: recipes.dependents, itemScope: recipes.itemScope) {
            let id = s * nodeCount + n
            guard instances[id].state == .pending || instances[id].state == .ready else { continue }
            // The reading node has not settled yet, so the item cannot end (and its slot be
            // reused) while these settle.
            mark(id, .upToDate)
            settle(id)
        }
    }
}
