import Glibc

/// A long input list kept compactly: every source path (and folder, and name when given) in
/// one byte buffer with an end offset each, instead of an `Item` of three `String`s each. A
/// million files listed from a folder cost their names' bytes plus a few words each, and
/// `Item`s are made one at a time as the run takes them.
struct PackedItems: Sendable {
    /// Sources as a folder (by number, with its slash) and the rest: the items of one folder share its path.
    private var folders: [String] = []
    private var folderOfItem: [UInt32] = []
    private var sources = PackedStrings()
    /// Empty until an item has a directory.
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
        // The folder with its slash, so that "/x.jpg" keeps its root and a URL keeps itself whole.
        var prefix = "", rest = source
        if !Item.hasScheme(source), let slash = source.utf8.lastIndex(of: UInt8(ascii: "/")) {
            prefix = String(source[...slash])
            rest = String(source[source.index(after: slash)...])
        }
        if folders.last != prefix { folders.append(prefix) }
        folderOfItem.append(UInt32(folders.count - 1))
        sources.append(rest)
        if !directory.isEmpty && directories.count == 0 {
            for _ in 0..<sources.count - 1 { directories.append("") }
        }
        if directories.count > 0 || !directory.isEmpty { directories.append(directory) }
        if let name { names.append(name) }
    }

    mutating func append(_ item: Item) {
        append(source: item.source, directory: item.directory, name: item.name, index: item.index)
    }

    subscript(position: Int) -> Item {
        Item(index: indices?[position] ?? position, name: position < names.count ? names[position] : nil,
             source: folders[Int(folderOfItem[position])] + sources[position],
             directory: position < directories.count ? directories[position] : "")
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
