import Foundation

/// Where a run's items come from, read lazily so a long list never sits in memory whole.
public struct ItemSource: Sendable {
    /// Hands out items one by one; one closure call per item, lighter than `AnyIterator`'s layers.
    final class Cursor {
        let next: () -> Item?
        /// Why the list ended early, once `next` has returned nil (a listing that failed part way).
        let failure: () -> String?
        /// A feed's: after `next` returned nil, whether more may come (the list has not ended).
        let isOpen: () -> Bool
        /// A feed's: hands it the call to make when items arrive.
        let listen: ((@escaping @Sendable () -> Void) -> Void)?
        init(_ next: @escaping () -> Item?, failure: @escaping () -> String? = { nil }, isOpen: @escaping () -> Bool = { false },
             listen: ((@escaping @Sendable () -> Void) -> Void)? = nil) {
            self.next = next
            self.failure = failure
            self.isOpen = isOpen
            self.listen = listen
        }
    }

    /// The number of items, when known in advance.
    public let count: Int?
    private let make: @Sendable () -> Cursor

    init(count: Int?, cursor make: @escaping @Sendable () -> Cursor) {
        self.count = count
        self.make = make
    }

    /// Items from any iterator the closure makes (called once per run).
    public init(count: Int?, _ make: @escaping @Sendable () -> AnyIterator<Item>) {
        self.init(count: count) {
            let iterator = make()
            return Cursor { iterator.next() }
        }
    }

    /// Items from a listing that can fail part way (a bucket's pages): `next` returns nil at the
    /// end or at a failure, after which `failure` says what went wrong; the run then ends
    /// failed with that reason, after the items already taken.
    public init(count: Int?, listing make: @escaping @Sendable () -> (next: () -> Item?, failure: () -> String?)) {
        self.init(count: count) {
            let listing = make()
            return Cursor(listing.next, failure: listing.failure)
        }
    }

    func makeCursor() -> Cursor { make() }

    /// Items fed while the run runs (the live page's): the run waits for more until the feed closes.
    public static func feed(_ feed: ItemFeed) -> ItemSource {
        ItemSource(count: nil) { Cursor(feed.take, isOpen: { feed.isOpen }, listen: feed.listen) }
    }

    /// A fresh iterator over the items.
    public func makeIterator() -> AnyIterator<Item> {
        let cursor = make()
        return AnyIterator { cursor.next() }
    }

    /// Items held in memory.
    public static func list(_ items: [Item]) -> ItemSource {
        ItemSource(count: items.count) { AnyIterator(items.makeIterator()) }
    }

    /// `count` items made on demand by `item(index)`.
    public static func generated(count: Int, _ item: @escaping @Sendable (Int) -> Item) -> ItemSource {
        ItemSource(count: count, cursor: {
            var next = 0
            return Cursor {
                guard next < count else { return nil }
                defer { next += 1 }
                return item(next)
            }
        })
    }

    /// One item per line of a text file, read as the run needs them (blank lines and `#` comments
    /// skipped; relative paths resolve against `folder`). A file that cannot be opened, or a
    /// read that fails part way, ends the run failed with the reason, after the items read.
    public static func lines(of path: String, relativeTo folder: String) -> ItemSource {
        ItemSource(count: nil, listing: {
            guard let reader = LineReader(path: path) else {
                return ({ nil }, { "the item list \(path) cannot be opened" })
            }
            var index = 0
            return ({
                while let line = reader.next() {
                    let text = line.trimmingCharacters(in: .whitespaces)
                    if text.isEmpty || text.hasPrefix("#") { continue }
                    defer { index += 1 }
                    return Item(index: index, source: InputExpansion.resolve(text, relativeTo: folder))
                }
                return nil
            }, { reader.failure.map { "the item list \(path) could not be read past item \(index): \($0)" } })
        })
    }
}

/// Reads a text file line by line in 64 KiB chunks.
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()
    private var atEnd = false
    /// Why reading stopped early, if it did (the lines before it were handed out; a partial
    /// line at the failure is dropped, not guessed at).
    private(set) var failure: String?

    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.handle = handle
    }

    // Closing a file we only read.
    deinit { try? handle.close() }

    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .newlines)
            }
            if atEnd {
                guard !buffer.isEmpty, failure == nil else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            do {
                let chunk = try handle.read(upToCount: 1 << 16)
                if let chunk, !chunk.isEmpty { buffer.append(chunk) } else { atEnd = true }
            } catch {
                failure = (error as NSError).localizedDescription
                atEnd = true
            }
        }
    }
}
