/// Which item (and which of its `write` nodes) owns each destination of a run.
///
/// A destination belongs to the first item in input order that names it: the engine claims an
/// item's paths when the item enters the window, in input order, before any of its nodes runs
/// — also when the item turns out up to date — so the owner never depends on which body
/// happened to finish first, and a rerun reports the same collision as the first run.
///
/// A run of a million items must not keep a million paths: each is kept as a 64-bit hash (two
/// paths of one run share one with odds of about 10⁻⁸ at a million) with its owner, and the
/// names of the first items for the message (a clashing template clashes with the first items).
struct OutputClaims {
    static let namesKept = 4096

    struct Owner: Equatable {
        let item: Int
        let node: UInt64
    }

    private var owners: [UInt64: Owner] = [:]
    private var names: [Int: String] = [:]

    /// Claims `key` for the node of `item`; the owner's description when another node or item
    /// holds it already. Claiming again what one already owns is allowed (reserved at
    /// admission, claimed again when the file is written).
    mutating func claim(_ key: UInt64, node: String, for item: Item) -> String? {
        let owner = Owner(item: item.index, node: ContentHash.number(node))
        if let existing = owners[key] {
            guard existing != owner else { return nil }
            if existing.item == item.index { return "another write node of the same item" }
            if existing.item < 0 { return "a run-scope node" }
            return names[existing.item].map { "item \($0), earlier in the input list" }
                ?? "item number \(existing.item) ({index}), earlier in the input list"
        }
        owners[key] = owner
        if item.index >= 0, names.count < Self.namesKept { names[item.index] = item.label }
        return nil
    }
}
