extension RunPlan {
    /// Whether an item-scope node reads run-scope node `n`, directly or through other run-scope nodes.
    func feedsItems(_ n: Int) -> Bool {
        var stack = [n], seen = Set<Int>()
        while let next = stack.popLast() {
            for d in nodes[next].dependents where seen.insert(d).inserted {
                if nodes[d].scope == .item { return true }
                stack.append(d)
            }
        }
        return false
    }
}
