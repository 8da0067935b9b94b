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

    /// I/O permits across the queues that hold I/O nodes (at least one).
    var ioPermits: Int {
        var io = 0
        for (q, limit) in limits.enumerated() where nodes.contains(where: { $0.queue == q && $0.isIO }) { io += limit }
        return max(1, io)
    }

    /// The run-scope nodes an item's nodes read directly: raised with the item (`prioritize`).
    var runInputsOfItems: [Int] {
        itemNodes.flatMap { n in nodes[n].inputs.filter(\.fromRunScope).map(\.node) }
    }

    /// The fan-ins (node, edge) that wait for the input list to end.
    var fanInEdges: [(node: Int, edge: Int)] {
        runNodes.flatMap { n in nodes[n].inputs.indices.filter { nodes[n].inputs[$0].isFanIn }.map { (n, $0) } }
    }

    /// The run-scope nodes still running or waiting that no item can need any more (the list
    /// has ended): no sink, and every run-scope reader ended. `isEnded(n)`: node `n` ended.
    func runNodesNeededByNobody(isEnded: (Int) -> Bool) -> [Int] {
        runNodes.filter { n in
            !isEnded(n) && !nodes[n].isSink && nodes[n].dependents.allSatisfy { isEnded($0) || nodes[$0].scope == .item }
        }
    }
}
