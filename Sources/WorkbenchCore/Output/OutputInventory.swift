/// The objects under a bucket output's prefix and their sizes, as one listing found them when
/// the run started: how an incremental run tells that an output it recorded is still there
/// (a deleted or replaced object is made again), as `stat` does in a folder.
///
/// Kept as 64-bit hashes of the keys below the prefix with their sizes — 16 bytes an object —
/// so a prefix of a million objects costs about 40 MB, not its keys' text.
public struct OutputInventory: Sendable {
    private var sizes: [UInt64: Int] = [:]

    public init() {}

    /// Adds the object at `path` (relative to the prefix) of `size` bytes.
    public mutating func add(_ path: String, size: Int) {
        sizes[ContentHash.number(path)] = size
    }

    /// The size of the object at `path`, or nil when the listing did not have it.
    public func size(of path: String) -> Int? { sizes[ContentHash.number(path)] }

    public var count: Int { sizes.count }
}
