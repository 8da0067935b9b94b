import Foundation
import Synchronization

/// The manifest's files in an output root: a log of records, `workbench-manifest.jsonl`, and
/// the logs shards write (`workbench-manifest.shard-I-of-N.jsonl`) until an unsharded run or
/// `workbench manifest merge` folds them in. `workbench manifest show` prints it all as one
/// JSON document (`ManifestDocument`).
///
/// A finished item appends one line (`ManifestLine`), so a run's cost per item stays the same
/// at a million items, and a run killed outright has already said what it did. Opening a log
/// reads only the hashes at the start of each line: what stays in memory is a table from key to
/// line (and from output path to the record that lists it); records are read from disk when
/// asked for. When more lines are stale than live, saving rewrites the log with the live ones,
/// ordered by key, so a log never grows past twice what it says.
///
/// One run writes one log, holding a lock (`flock`) on it, which keeps two runs from writing
/// the same file. The log holds the records of every preset that writes into the root; a store
/// reads and writes those of one preset (`preset`).
public final class ManifestStore: Sendable {
    public static let fileName = "workbench-manifest.jsonl"

    public let root: String
    public let shard: Shard?
    /// The preset whose records `item` reads and `record` writes.
    public let preset: String?
    /// The log this run appends to.
    public let path: String
    /// What was found wrong while loading (damaged lines are read as absent: their items are redone).
    public let warnings: [String]
    let files: [String]
    private let own: Int
    private let legacyFiles: [String]
    private let state: Mutex<ManifestIndex>

    /// Loads what earlier runs recorded in `root` and takes the lock for this run's log.
    /// `preset`: the key of the preset that runs (`presetKey(file:root:)`).
    public convenience init(root: String, shard: Shard? = nil, preset: String? = nil) throws(WorkbenchError) {
        try self.init(root: root, shard: shard, preset: preset, writing: true)
    }

    /// `writing` false: reads only (no lock, no file made), for showing the manifest.
    init(root: String, shard: Shard?, preset: String?, writing: Bool) throws(WorkbenchError) {
        self.root = root
        self.shard = shard
        self.preset = preset
        path = root + "/" + (shard.map { "workbench-manifest.\($0.label).jsonl" } ?? Self.fileName)
        var files = [root + "/" + Self.fileName] + Self.parts(in: root).filter { $0 != root + "/" + Self.fileName }
        if !files.contains(path) { files.append(path) }
        self.files = files
        let own = files.firstIndex(of: path) ?? 0
        self.own = own
        var index = ManifestIndex(files: files.count, preset: preset)
        if writing { try index.openForAppending(path, number: own) }
        var warnings: [String] = []
        // Records of manifests before the log, then the logs: later ones win.
        let legacy = ManifestLegacy.files(in: root)
        legacyFiles = legacy.documents + legacy.journals
        for file in legacy.documents {
            for item in ManifestLegacy.read(file, warnings: &warnings) { index.insertLegacy(item) }
        }
        for journal in legacy.journals {
            for item in ManifestLegacy.replay(journal) { index.insertLegacy(item) }
        }
        for (number, file) in files.enumerated() {
            if let problem = index.load(file, number: number) { warnings.append(problem) }
        }
        self.warnings = warnings
        state = Mutex(index)
    }

    deinit {
        state.withLock { $0.close() }
    }

    /// What the manifest says about the item with this key, for this store's preset.
    public func item(_ key: String) -> ManifestItem? {
        for name in preset == nil ? [nil] : [preset, nil] {
            let hash = ManifestLine.key(preset: name, input: key)
            // Read and decoded outside the lock: items look up their records from several threads.
            guard let source = state.withLock({ $0.source(of: hash) }), let item = source.read(),
                  ManifestIndex.matches(item, input: key, preset: name) else { continue }
            if case .line = source { state.withLock { $0.remember(hash, item) } }
            return item
        }
        return nil
    }

    /// Records an item's outputs (one line appended to the log), as this store's preset's.
    /// Returns what it says about files another preset had written: they are this preset's now,
    /// and the other preset will make them again.
    @discardableResult
    public func record(_ item: ManifestItem) -> [String] {
        var item = item
        if item.preset == nil { item.preset = preset }
        let clashes = state.withLock { $0.record(item) }
        return clashes.map { clash in
            let node = item.outputs.first { $0.path == clash.path }?.node ?? "write"
            return "\(node): overwrote \(clash.path) of another preset, \(clash.previous) (path from the output folder), which will make it again; give the two presets different paths"
        }
    }

    /// How a manifest names a preset: its file's path relative to the output root, so the
    /// name holds wherever a shared folder is mounted (a cluster's volume, a moved project).
    public static func presetKey(file: String, root: String) -> String {
        let from = URL(fileURLWithPath: root).standardizedFileURL.pathComponents
        let to = URL(fileURLWithPath: file).standardizedFileURL.pathComponents
        var common = 0
        while common < min(from.count, to.count), from[common] == to[common] { common += 1 }
        return (Array(repeating: "..", count: from.count - common) + to[common...]).joined(separator: "/")
    }

    /// Ends this run's writing and lets the lock go. Unsharded, the log takes in the records of
    /// the shards' logs and of manifests before the log (which are then removed), and is
    /// compacted when most of its lines are stale. Returns whether the log was rewritten or
    /// took in other files (rather than only had lines appended).
    @discardableResult
    public func save() throws(WorkbenchError) -> Bool {
        try state.withLock { (index: inout ManifestIndex) throws(WorkbenchError) -> Bool in
            defer { index.close() }
            var rewritten = false
            if shard == nil {
                let others = files.indices.filter { $0 != own && FileManager.default.fileExists(atPath: files[$0]) }
                try index.fold(into: own)
                for number in others { unlink(files[number]) }
                for file in legacyFiles { unlink(file) }
                rewritten = !others.isEmpty || !legacyFiles.isEmpty
                if try index.compactIfStale(path: path) { rewritten = true }
            }
            try index.finish(path: path)
            return rewritten
        }
    }

    /// Says whether every record so far reached the disk, keeping the lock: for a process that
    /// runs items again and again (`workbench serve`).
    public func write() throws(WorkbenchError) {
        try state.withLock { (index: inout ManifestIndex) throws(WorkbenchError) in
            if let problem = index.writeProblem { throw .manifestUnwritable(path: path, reason: problem) }
        }
    }

    /// Every record, sorted by input and preset: the manifest as one document.
    public func document() -> ManifestDocument {
        ManifestDocument(items: state.withLock { $0.allItems() })
    }

    /// The manifest in `root` as one document, read without taking any lock.
    public static func document(root: String) throws(WorkbenchError) -> (document: ManifestDocument, warnings: [String]) {
        let store = try ManifestStore(root: root, shard: nil, preset: nil, writing: false)
        return (store.document(), store.warnings)
    }

    /// Folds every shard's log into the manifest. Refused while a shard of this root is running.
    public static func merge(root: String) throws(WorkbenchError) -> (parts: Int, items: Int) {
        let logs = parts(in: root).filter { $0 != root + "/" + fileName }
        let legacyParts = ManifestLegacy.files(in: root).documents.filter { !$0.hasSuffix("/" + ManifestLegacy.fileName) }
        // A log still locked belongs to a shard that is running now.
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for log in logs {
            let fd = open(log, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            held.append(fd)
            if flock(fd, LOCK_EX | LOCK_NB) != 0 { throw .manifestBusy(path: log) }
        }
        let store = try ManifestStore(root: root)
        let count = store.state.withLock { $0.liveCount }
        try store.save()
        return (logs.count + legacyParts.count, count)
    }

    /// Shard logs (and the main log, if there), sorted.
    private static func parts(in root: String) -> [String] {
        // No folder yet is no shard logs yet (a first run).
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { $0.hasPrefix("workbench-manifest.shard-") && $0.hasSuffix(".jsonl") }.sorted().map { root + "/" + $0 }
    }
}
