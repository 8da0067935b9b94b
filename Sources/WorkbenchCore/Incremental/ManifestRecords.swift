/// The records of a manifest: one per preset and input, and which record owns each file.
///
/// Presets that write into the same output root keep their records side by side, so running
/// preset A, then B, then A again finds A's files up to date. A file belongs to the record
/// that wrote it last: when another preset writes the same path, the earlier owner's record
/// loses it (that preset will make it again), and the clash is reported.
struct ManifestRecords: Sendable {
    struct Key: Hashable, Sendable {
        let preset: String?
        let input: String
    }

    /// A file one preset wrote over another's.
    struct Clash: Sendable, Equatable {
        let path: String
        /// The preset whose file it was.
        let previous: String
    }

    private(set) var items: [Key: ManifestItem] = [:]
    /// Each recorded file's path → the record that lists it.
    private var owners: [String: Key] = [:]

    var count: Int { items.count }
    var all: [ManifestItem] { Array(items.values) }

    /// The record of `input` by `preset`; a record from before presets were named (version 1)
    /// stands in when there is none.
    func item(preset: String?, input: String) -> ManifestItem? {
        items[Key(preset: preset, input: input)] ?? items[Key(preset: nil, input: input)]
    }

    /// Puts `item` in (replacing its preset's earlier record of the same input) and takes its
    /// files from whichever record listed them before; returns the files taken from another preset.
    @discardableResult
    mutating func insert(_ item: ManifestItem) -> [Clash] {
        let key = Key(preset: item.preset, input: item.input)
        if let old = items[key] {
            for file in old.outputs where owners[file.path] == key { owners[file.path] = nil }
        }
        var clashes: [Clash] = []
        for file in item.outputs {
            if let owner = owners[file.path], owner != key {
                if let previous = owner.preset, previous != item.preset { clashes.append(Clash(path: file.path, previous: previous)) }
                drop(file.path, from: owner)
            }
            owners[file.path] = key
        }
        items[key] = item
        // A record from before presets were named gives up what this preset now records.
        if item.preset != nil, let legacy = items[Key(preset: nil, input: item.input)], legacy.outputs.isEmpty {
            items[Key(preset: nil, input: item.input)] = nil
        }
        return clashes
    }

    private mutating func drop(_ path: String, from key: Key) {
        guard var record = items[key] else { return }
        record.outputs.removeAll { $0.path == path }
        // A record of no preset with nothing left says nothing.
        items[key] = key.preset == nil && record.outputs.isEmpty ? nil : record
    }
}
