/// Claiming the paths a run's `write`s will write, before anything of theirs runs.
extension RunPlan {
    /// Claims the paths of `item`'s writes in input order, whether or not they will run (an
    /// item found up to date keeps its files from a later item). `pending(n)`: write `n` has
    /// not ended. Returns the writes whose path an earlier item (or node) holds, with why.
    func claimWrites(of item: Item, in output: OutputRoot, pending: (Int) -> Bool) -> [(node: Int, message: String)] {
        var refused: [(node: Int, message: String)] = []
        for (n, stage) in writes where nodes[n].scope == .item && pending(n) {
            do {
                try output.reserve(try stage.destination(for: item, runFileSuffix: nil), node: nodes[n].id, for: item)
            } catch {
                refused.append((n, String(describing: error)))
            }
        }
        return refused
    }

    /// Run-scope files (a contact sheet) are claimed before any item: an item naming one fails.
    func claimRunWrites(in output: OutputRoot, runFileSuffix: String?) {
        for (n, stage) in writes where nodes[n].scope == .run {
            // A clash between two run-scope writes is reported when the second one runs.
            if let path = try? stage.destination(for: .run, runFileSuffix: runFileSuffix) {
                // As above: that clash is reported when the write runs, with both nodes named.
                try? output.reserve(path, node: nodes[n].id, for: .run)
            }
        }
    }
}
