import Foundation
import Synchronization

/// The manifest's files in an output root: `workbench-manifest.json`, the parts shards write
/// (`workbench-manifest.shard-I-of-N.json`) until `workbench manifest merge` folds them in,
/// and a journal per writer (`.workbench-manifest….journal`) that gets a line for each finished
/// item, so a run killed outright (SIGKILL, a lost node) still tells its rerun what it did.
///
/// One run writes one file: the manifest, or its shard's part. Its journal exists while it
/// runs and holds a lock (`flock`), which keeps two runs from writing the same file. The
/// manifest holds the records of every preset that writes into the root; a store reads and
/// writes those of one preset (`preset`), and keeps the others as they are.
public final class ManifestStore: Sendable {
    public static let fileName = "workbench-manifest.json"

    public let root: String
    public let shard: Shard?
    /// The preset whose records `item` reads and `record` writes.
    public let preset: String?
    /// The file this run writes.
    public let path: String
    /// What was found wrong while loading (a damaged file is read as empty: its items are redone).
    public let warnings: [String]
    private let journalPath: String
    private let known: Mutex<ManifestRecords>
    /// Whether a manifest was there to begin with (a run that records nothing then writes none).
    private let existed: Bool
    /// The journal, open and locked from the start; -1 once it is closed.
    private let journal: Mutex<Int32>

    /// Loads what earlier runs recorded in `root` and takes the lock for this run's file.
    /// `preset`: the key of the preset that runs (`presetKey(file:root:)`).
    public init(root: String, shard: Shard? = nil, preset: String? = nil) throws(WorkbenchError) {
        self.root = root
        self.shard = shard
        self.preset = preset
        let stem = shard.map { "workbench-manifest.\($0.label)" } ?? "workbench-manifest"
        path = root + "/" + stem + ".json"
        journalPath = root + "/." + stem + ".journal"
        let fd = open(journalPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .manifestUnwritable(path: journalPath, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw .manifestBusy(path: path)
        }
        journal = Mutex(fd)
        var warnings: [String] = []
        var items = ManifestRecords()
        let documents = Self.documents(in: root)
        for file in documents {
            for item in Self.read(file, warnings: &warnings) { items.insert(item) }
        }
        // What a run of this same file that never finished had done.
        for item in Self.replay(journalPath) { items.insert(item) }
        existed = !documents.isEmpty
        known = Mutex(items)
        self.warnings = warnings
    }

    deinit {
        journal.withLock { if $0 >= 0 { close($0) } }
    }

    /// What the manifest says about the item with this key, for this store's preset.
    public func item(_ key: String) -> ManifestItem? { known.withLock { $0.item(preset: preset, input: key) } }

    /// Records an item's outputs now (in the journal) and for the manifest written at the end,
    /// as this store's preset's. Returns what it says about files another preset had written:
    /// they are this preset's now, and the other preset will make them again.
    @discardableResult
    public func record(_ item: ManifestItem) -> [String] {
        var item = item
        if item.preset == nil { item.preset = preset }
        let clashes = known.withLock { $0.insert(item) }
        let said = clashes.map { clash in
            let node = item.outputs.first { $0.path == clash.path }?.node ?? "write"
            return "\(node): overwrote \(clash.path) of another preset, \(clash.previous) (path from the output folder), which will make it again; give the two presets different paths"
        }
        guard let line = try? item.line() else { return said }
        journal.withLock { fd in
            guard fd >= 0 else { return }
            // One write per line: O_APPEND keeps lines whole (a torn last line is skipped on replay).
            line.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
        }
        return said
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

    /// Writes this run's file and drops the journal (which ends the lock). Unsharded, the
    /// manifest takes in every part (which are then removed); a shard writes the items that
    /// belong to it.
    public func save() throws(WorkbenchError) {
        defer {
            // Unlinked before the lock goes with the descriptor: the next run finds none to replay.
            journal.withLock { fd in
                guard fd >= 0 else { return }
                unlink(journalPath)
                close(fd)
                fd = -1
            }
        }
        try write()
    }

    /// Writes this run's file now and keeps the journal and the lock: for a process that runs
    /// items again and again (`workbench serve`).
    public func write() throws(WorkbenchError) {
        let items = known.withLock { $0 }
        if items.count == 0 && !existed { return }
        var kept = items.all
        if let shard { kept = kept.filter { shard.contains(key: $0.input) } }
        let data: Data
        do {
            data = try ManifestDocument(items: kept).encoded()
        } catch {
            throw .manifestUnwritable(path: path, reason: "\(error)")
        }
        do {
            try AtomicFile.write(data, to: path, cancellation: CancellationToken())
        } catch {
            throw .manifestUnwritable(path: path, reason: "\(error)")
        }
        if shard == nil {
            for part in Self.parts(in: root) { unlink(part) }
        }
    }

    /// Folds every shard's part (and the journals of shards that were killed) into the
    /// manifest. Refused while a shard of this root is running.
    public static func merge(root: String) throws(WorkbenchError) -> (parts: Int, items: Int) {
        let partFiles = parts(in: root)
        let journals = files(in: root) { $0.hasPrefix(".workbench-manifest.shard-") && $0.hasSuffix(".journal") }
        // A journal still locked belongs to a shard that is running now.
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for journal in journals {
            let fd = open(journal, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            held.append(fd)
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                throw .manifestBusy(path: journal)
            }
        }
        let store = try ManifestStore(root: root)
        for journal in journals {
            for item in replay(journal) { store.known.withLock { _ = $0.insert(item) } }
        }
        try store.save()
        for journal in journals { unlink(journal) }
        return (partFiles.count, store.known.withLock { $0.count })
    }

    /// The manifest, then the shards' parts, in a stable order; later ones win.
    private static func documents(in root: String) -> [String] {
        [root + "/" + fileName].filter { FileManager.default.fileExists(atPath: $0) } + parts(in: root)
    }

    private static func parts(in root: String) -> [String] {
        files(in: root) { $0.hasPrefix("workbench-manifest.shard-") && $0.hasSuffix(".json") }
    }

    private static func files(in root: String, where matches: (String) -> Bool) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter(matches).sorted().map { root + "/" + $0 }
    }

    private static func read(_ file: String, warnings: inout [String]) -> [ManifestItem] {
        guard let data = FileManager.default.contents(atPath: file) else {
            warnings.append("Cannot read the manifest \"\(file)\"; the items it lists will be redone.")
            return []
        }
        do {
            let document = try JSONDecoder().decode(ManifestDocument.self, from: data)
            guard (1...ManifestDocument.version).contains(document.manifestVersion) else {
                warnings.append("The manifest \"\(file)\" has version \(document.manifestVersion), which this workbench does not know; its items will be redone.")
                return []
            }
            return document.items
        } catch {
            warnings.append("The manifest \"\(file)\" is damaged (\(Self.reason(error))); its items will be redone and the file rewritten.")
            return []
        }
    }

    private static func replay(_ journal: String) -> [ManifestItem] {
        guard let data = FileManager.default.contents(atPath: journal) else { return [] }
        let decoder = JSONDecoder()
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(ManifestItem.self, from: Data($0)) }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
             DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (path.isEmpty ? "" : "at \(path.hasPrefix(".") ? String(path.dropFirst()) : path): ") + context.debugDescription
        default:
            return "\(error)"
        }
    }
}
