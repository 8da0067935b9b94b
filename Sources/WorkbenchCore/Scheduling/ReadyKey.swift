/// The order of ready nodes inside one queue: higher (inherited) QoS, then earlier items, then
/// nodes further down the chain, so items finish instead of all starting. Packed into one word
/// so the heap moves little memory.
struct ReadyKey: Comparable, Sendable {
    /// `(3 - qos) << 60 | (item + 1) << 8 | (255 - depth)`: smaller is more urgent.
    let rank: UInt64
    let instance: Int
    /// Matches the instance's version while the entry is current; a re-bucketed node leaves a stale entry.
    let version: Int

    init(qos: Int, item: Int, depth: Int, instance: Int, version: Int) {
        let item = UInt64(min(max(item + 1, 0), (1 << 52) - 1))
        rank = UInt64(3 - min(max(qos, 0), 3)) << 60 | item << 8 | UInt64(255 - min(max(depth, 0), 255))
        self.instance = instance
        self.version = version
    }

    var qos: Int { 3 - Int(rank >> 60) }
    var item: Int { Int((rank >> 8) & ((1 << 52) - 1)) - 1 }
    var depth: Int { 255 - Int(rank & 0xFF) }

    static func < (a: ReadyKey, b: ReadyKey) -> Bool { a.rank < b.rank || (a.rank == b.rank && a.version < b.version) }
    static func == (a: ReadyKey, b: ReadyKey) -> Bool { a.rank == b.rank && a.version == b.version }
}
