/// One of `count` disjoint parts of a run's items (`--shard I/N`), chosen by a stable hash of
/// each item's key: every machine given the same inputs picks the same items, whatever the
/// order or number of inputs the others see.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// From 0 to `count - 1`.
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) throws(WorkbenchError) {
        guard count >= 1 else { throw .badShard("\(index)/\(count): the number of shards must be at least 1") }
        guard index >= 0, index < count else {
            throw .badShard("\(index)/\(count): the index must be from 0 to \(count - 1)")
        }
        self.index = index
        self.count = count
    }

    /// Whether the item with this key belongs to this shard.
    public func contains(key: String) -> Bool {
        Int(ContentHash.number(key) % UInt64(count)) == index
    }

    /// `shard-1-of-4`: names this shard's manifest part and its own sheets.
    public var label: String { "shard-\(index)-of-\(count)" }

    public var description: String { "\(index)/\(count)" }

    /// Where job arrays put a task's index (and sometimes the count), checked in this order.
    static let indexVariables = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX"]

    /// `I/N`, `auto/N` (I from the job array's environment) or `auto` (both from it: Slurm).
    public static func parse(_ text: String, environment: [String: String]) throws(WorkbenchError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let first = parts.first else { throw .badShard("\"\(text)\": write it as I/N, e.g. 0/4") }
        var count: Int?
        if parts.count == 2 {
            guard let n = Int(parts[1]) else { throw .badShard("\"\(text)\": the count \"\(parts[1])\" is not a number") }
            count = n
        }
        var index: Int
        if first == "auto" {
            guard let (variable, value) = indexVariables.lazy.compactMap({ name in environment[name].map { (name, $0) } }).first else {
                throw .badShard("\"auto\": none of \(indexVariables.joined(separator: ", ")) is set; give the index as I/N")
            }
            guard let i = Int(value) else { throw .badShard("\(variable)=\"\(value)\" is not a number") }
            index = i
            if variable == "SLURM_ARRAY_TASK_ID" {
                // Arrays may start at 1 (--array=1-8): count from the first task.
                index -= environment["SLURM_ARRAY_TASK_MIN"].flatMap { Int($0) } ?? 0
                if count == nil { count = environment["SLURM_ARRAY_TASK_COUNT"].flatMap { Int($0) } }
            }
        } else {
            guard let i = Int(first) else { throw .badShard("\"\(text)\": the index \"\(first)\" is not a number or \"auto\"") }
            index = i
        }
        guard let count else { throw .badShard("\"\(text)\": give the number of shards too, e.g. \(first)/4") }
        return try Shard(index: index, count: count)
    }
}

extension Item {
    /// The item's stable name in manifests and for shards: its URL, or its path — relative to
    /// `base` (the preset's folder) when inside it, so a project folder can move.
    public func key(relativeTo base: String) -> String {
        if isURL && !source.hasPrefix("file://") { return source }
        var path = source.hasPrefix("file://") ? String(source.dropFirst("file://".count)) : source
        if !path.hasPrefix("/") { return path }
        let folder = base.hasSuffix("/") ? String(base.dropLast()) : base
        if !folder.isEmpty && path.hasPrefix(folder + "/") { path = String(path.dropFirst(folder.count + 1)) }
        return path
    }
}

extension ItemSource {
    /// The items that belong to `shard`, keeping their indices (so `{index}` names the same
    /// file as in an unsharded run). `passedOver` sees, in input order, each item left to
    /// another shard (`OutputRoot.reserveOutputs`: a file two shards' items would both make
    /// belongs to the earlier item in every shard).
    public func sharded(_ shard: Shard, base: String, passedOver: (@Sendable (Item) -> Void)? = nil) -> ItemSource {
        guard shard.count > 1 else { return self }
        if count != nil && passedOver == nil {
            var kept = PackedItems()
            let iterator = makeIterator()
            while let item = iterator.next() { if shard.contains(key: item.key(relativeTo: base)) { kept.append(item) } }
            return kept.source
        }
        var total: Int?
        if count != nil {
            // Counted ahead; the items themselves are taken in order with the passed-over ones.
            var own = 0
            let iterator = makeIterator()
            while let item = iterator.next() { if shard.contains(key: item.key(relativeTo: base)) { own += 1 } }
            total = own
        }
        let all = self
        return ItemSource(count: total, cursor: {
            let cursor = all.makeCursor()
            return Cursor({
                while let item = cursor.next() {
                    if shard.contains(key: item.key(relativeTo: base)) { return item }
                    passedOver?(item)
                }
                return nil
            }, failure: cursor.failure)
        })
    }
}

extension OutputRoot {
    /// Claims the files an item of another shard makes (see `ItemSource.sharded`), so that the
    /// earlier of two items naming one file keeps it in every shard; a clash here is that
    /// other shard's to report.
    public func reserveOutputs(of item: Item, in preset: Preset) {
        for node in preset.nodes where node.scope == .item {
            // Another shard's item: a path it cannot render, or a clash, is that shard's to report
            // when it runs.
            guard let write = node.stage as? any ClaimsOutput, let path = try? write.destination(for: item, runFileSuffix: nil) else { continue }
            // As above: a clash is the other shard's to report.
            try? reserve(path, node: node.id, for: item)
        }
    }
}
