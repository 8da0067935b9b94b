/// Run-scope inputs that gather one output from every item (a contact sheet's `images`).
///
/// Each such input is a fan-in slot. An item node that feeds some is `expect`ed once per item
/// as the item is admitted and `contribute`s when it ends (a payload if it succeeded); a slot is
/// complete once the item list has ended and nothing more is expected, and its payloads are
/// then `gather`ed in item order.
struct FanIns {
    /// Where an item node's output goes: run-scope node `node`'s input `edge`, fan-in slot `slot`.
    typealias Target = (node: Int, edge: Int, slot: Int)

    private struct Entry {
        let item: Int
        let payload: Payload
    }

    /// For item node u, `targets[ranges[u]]`.
    private let targets: RawTable<Target>
    private let ranges: RawTable<(start: Int, end: Int)>
    /// By node and input: its fan-in slot, or -1.
    private let slots: [[Int]]
    /// Per slot: items still to contribute.
    private var open: [Int]
    /// Per slot: contributions in arrival order.
    private var entries: [[Entry]]

    /// `inputs[d]` lists node d's inputs: the node each reads and whether it gathers every item's.
    init(inputs: [[(node: Int, isFanIn: Bool)]]) {
        var lists = [[Target]](repeating: [], count: inputs.count)
        var slots = inputs.map { [Int](repeating: -1, count: $0.count) }
        var count = 0
        for (d, edges) in inputs.enumerated() {
            for (e, edge) in edges.enumerated() where edge.isFanIn {
                lists[edge.node].append((d, e, count))
                slots[d][e] = count
                count += 1
            }
        }
        (targets, ranges) = RawTable.flattening(lists)
        self.slots = slots
        open = Array(repeating: 0, count: count)
        entries = Array(repeating: [], count: count)
    }

    /// Frees the tables; called once by the owner's `deinit`.
    func free() {
        targets.free()
        ranges.free()
    }

    /// Whether node `u`'s output goes to any fan-in.
    @inline(__always) func feeds(_ u: Int) -> Bool { ranges[u].start != ranges[u].end }

    /// The fan-in slot of node `d`'s input `edge` (-1: not a fan-in).
    func slot(node d: Int, edge: Int) -> Int { slots[d][edge] }

    /// A new item will contribute node `u`'s output to each fan-in `u` feeds.
    mutating func expect(from u: Int) {
        let range = ranges[u]
        for t in range.start..<range.end { open[targets[t].slot] += 1 }
    }

    /// Whether the slot has every contribution it will get (the list has ended).
    func isComplete(_ slot: Int, listEnded: Bool) -> Bool { listEnded && open[slot] == 0 }

    /// Item `item`'s node `u` ended, with a payload if it succeeded. Fan-ins of run nodes for
    /// which `isClosed` is true (already ended) are left alone; `completed` is called for each
    /// target that now has everything.
    mutating func contribute(_ payload: Payload?, from u: Int, item: Int, listEnded: Bool,
                             isClosed: (Int) -> Bool, completed: (Target) -> Void) {
        let range = ranges[u]
        for t in range.start..<range.end {
            let target = targets[t]
            guard !isClosed(target.node) else { continue }
            if let payload { entries[target.slot].append(Entry(item: item, payload: payload)) }
            open[target.slot] -= 1
            if listEnded && open[target.slot] == 0 { completed(target) }
        }
    }

    /// The slot's payloads in item order; the slot is emptied.
    mutating func gather(_ slot: Int) -> [Payload] {
        var list = entries[slot]
        entries[slot] = []
        // Items mostly end in order; sort only when they did not.
        if list.indices.dropFirst().contains(where: { list[$0 - 1].item > list[$0].item }) {
            list.sort { $0.item < $1.item }
        }
        return list.map(\.payload)
    }
}
