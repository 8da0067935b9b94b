/// The order of ready nodes inside one queue: higher (inherited) QoS, then earlier items, then
/// nodes further down the chain, so items finish instead of all starting.
struct ReadyKey: Comparable, Sendable {
    let qos: Int
    let item: Int
    let depth: Int
    let sequence: Int
    let instance: Int
    /// Matches the instance's version while the entry is current; a re-bucketed node leaves a stale entry.
    let version: Int

    static func < (a: ReadyKey, b: ReadyKey) -> Bool {
        if a.qos != b.qos { return a.qos > b.qos }
        if a.item != b.item { return a.item < b.item }
        if a.depth != b.depth { return a.depth > b.depth }
        return a.sequence < b.sequence
    }

    static func == (a: ReadyKey, b: ReadyKey) -> Bool { a.sequence == b.sequence }
}
