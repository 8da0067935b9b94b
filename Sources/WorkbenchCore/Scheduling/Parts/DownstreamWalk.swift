/// A depth-first walk from an instance down to every instance that reads it, on a stack of its
/// own rather than the call stack: a chain of a million nodes is a million levels deep. Each
/// instance is entered when the walk reaches it, and left once everything below it was walked,
/// in the order a recursive walk would (leaving may finish an item, so it comes last).
struct DownstreamWalk {
    private struct Frame {
        let id: Int
        let node: Int
        var dependent = 0
        var targets: [Int] = []
        var target = 0
    }

    /// `dependents(n)`: the nodes reading node `n`. `targets(d, id)`: node `d`'s instances that
    /// read instance `id`. `enter(target, from)`: marks a target reached from node `from` and
    /// returns its node, or nil to walk past it. `leave(id, parent)`: instance `id` is done,
    /// reached from node `parent`.
    static func walk(from id: Int, node: Int, dependents: (Int) -> [Int], targets: (_ dependent: Int, _ of: Int) -> [Int],
                     enter: (_ target: Int, _ from: Int) -> Int?, leave: (_ id: Int, _ parent: Int) -> Void) {
        var stack = [Frame(id: id, node: node)]
        while let top = stack.last {
            if top.target < top.targets.count {
                let target = top.targets[top.target]
                stack[stack.count - 1].target += 1
                if let d = enter(target, top.node) { stack.append(Frame(id: target, node: d)) }
                continue
            }
            let below = dependents(top.node)
            if top.dependent < below.count {
                stack[stack.count - 1].targets = targets(below[top.dependent], top.id)
                stack[stack.count - 1].dependent += 1
                stack[stack.count - 1].target = 0
                continue
            }
            stack.removeLast()
            guard let parent = stack.last else { break }
            leave(top.id, parent.node)
        }
    }
}
