import Glibc

/// A long input list kept compactly: every source path (and folder, and name when given) in
/// one byte buffer with an end offset each, instead of an `Item` of three `String`s each. A
/// million files listed from a folder cost their names' bytes plus a few words each, and
/// `Item`s are made one at a time as the run takes them.
struct PackedItems: Sendable {
    private var sources = PackedStrings()
    private var directories = PackedStrings()
    private var names = PackedStrings()
    /// Item indices when they are not the positions (the items a shard keeps).
    private var indices: [Int]?

    var count: Int { sources.count }

    init() {}

    /// Adds an item; `index` defaults to its position. Give every item a name or none.
    mutating func append(source: String, directory: String = "", name: String? = nil, index: Int? = nil) {
        if let index {
            if indices == nil { indices = Array(0..<sources.count) }
            indices?.append(index)
        } else if indices != nil {
            indices?.append(sources.count)
        }
        sources.append(source)
        directories.append(directory)
        if let name { names.append(name) }
    }

    mutating func append(_ item: Item) {
        append(source: item.source, directory: item.directory, name: item.name, index: item.index)
    }

    subscript(position: Int) -> Item {
        Item(index: indices?[position] ?? position, name: position < names.count ? names[position] : nil,
             source: sources[position], directory: directories[position])
    }

    var source: ItemSource {
        let items = self
        return .generated(count: items.count) { items[$0] }
    }
}

/// Strings appended one after another into one buffer, read back by position.
struct PackedStrings: Sendable {
    private var bytes: [UInt8] = []
    private var ends: [Int] = []

    var count: Int { ends.count }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        ends.append(bytes.count)
    }

    subscript(position: Int) -> String {
        let start = position == 0 ? 0 : ends[position - 1]
        return String(decoding: bytes[start..<ends[position]], as: UTF8.self)
    }

    /// Positions in the byte order of their strings (the order `sorted()` gives ASCII names).
    func sortedPositions() -> [Int] {
        guard !bytes.isEmpty else { return Array(0..<count) }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return Array(0..<count) }
            return Array(0..<count).sorted { a, b in
                let sa = a == 0 ? 0 : ends[a - 1], sb = b == 0 ? 0 : ends[b - 1]
                let la = ends[a] - sa, lb = ends[b] - sb
                let order = memcmp(base + sa, base + sb, min(la, lb))
                return order != 0 ? order < 0 : la < lb
            }
        }
    }
}
