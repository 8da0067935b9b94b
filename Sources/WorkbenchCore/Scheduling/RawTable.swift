/// A fixed table of plain values, allocated once and freed by its owner's `deinit`.
///
/// The scheduler's hot path reads per-node tables under its lock, and the lock passes between
/// workers on different cores. Reading a Swift array of a shared plan retains and releases its
/// buffer, and those atomic writes move the buffer's cache line between the cores on every task.
/// A raw buffer of trivial values is read without any reference counting.
struct RawTable<Element: BitwiseCopyable>: @unchecked Sendable {
    // Safe: written only in `init`, read-only afterwards; the owner frees it once no thread reads it.
    private let base: UnsafeMutableBufferPointer<Element>

    init(_ elements: [Element]) {
        base = .allocate(capacity: max(1, elements.count))
        _ = base.initialize(from: elements)
        count = elements.count
    }

    let count: Int

    @inline(__always)
    subscript(index: Int) -> Element { base[index] }

    /// Frees the memory; the table must not be read afterwards.
    func free() { base.deallocate() }
}

extension RawTable {
    /// Lists per node as one table, and each list's range in it (`table[ranges[n].start..<ranges[n].end]`).
    static func flattening(_ lists: [[Element]]) -> (table: RawTable<Element>, ranges: RawTable<(start: Int, end: Int)>) {
        var ranges: [(start: Int, end: Int)] = []
        var start = 0
        for list in lists {
            ranges.append((start, start + list.count))
            start += list.count
        }
        return (RawTable(lists.flatMap { $0 }), RawTable<(start: Int, end: Int)>(ranges))
    }
}
