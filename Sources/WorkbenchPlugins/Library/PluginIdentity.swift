import Foundation
import Synchronization
import WorkbenchCore

/// What a plugin *is*, for recipes: the hash of its `plugin.json` and of its library file, not
/// the version it declares (people rebuild a kernel without bumping it, and its files must
/// then be redone).
///
/// Hashing a library costs a read of it, so each file's hash is kept with its inode, size and
/// modification time in `~/.cache/workbench/plugin-identities.json` (`$XDG_CACHE_HOME` if
/// set): a rerun only `stat`s the files. A rebuild changes the time (and usually the inode),
/// so the hash is made again. Without a usable cache folder the hash is made every run.
public enum PluginIdentity {
    /// One file's hash and what it was taken from.
    struct Entry: Codable, Equatable {
        var inode: UInt64
        var size: Int64
        var modifiedNs: Int64
        var hash: String
    }

    private static let cache = Mutex<[String: Entry]?>(nil)

    /// The identity of the plugin described by `manifest`: 32 hex digits, or "unreadable" when
    /// a file cannot be read (such a plugin is refused when it loads anyway).
    public static func of(_ manifest: PluginManifest) -> String {
        var files = [manifest.folder + "/plugin.json"]
        if !manifest.library.isEmpty { files.append(manifest.libraryPath) }
        var parts: [String] = []
        for file in files {
            guard let hash = hash(of: file) else { return "unreadable" }
            parts.append(hash)
        }
        return parts.count == 1 ? parts[0] : ContentHash.hex(parts.joined(separator: " "))
    }

    /// The hash of one file, from the cache when the file is as it was.
    static func hash(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let stamp = Entry(inode: UInt64(info.st_ino), size: Int64(info.st_size),
                          modifiedNs: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec), hash: "")
        let key = URL(fileURLWithPath: path).standardizedFileURL.path
        if let known = cached()[key], known.inode == stamp.inode, known.size == stamp.size, known.modifiedNs == stamp.modifiedNs {
            return known.hash
        }
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        var entry = stamp
        entry.hash = ContentHash.hex(data)
        remember(entry, for: key)
        return entry.hash
    }

    static var cacheFile: String? {
        let environment = ProcessInfo.processInfo.environment
        if let folder = environment["XDG_CACHE_HOME"], folder.hasPrefix("/") { return folder + "/workbench/plugin-identities.json" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.cache/workbench/plugin-identities.json" }
        return nil
    }

    private static func cached() -> [String: Entry] {
        cache.withLock { loaded in
            if let loaded { return loaded }
            var entries: [String: Entry] = [:]
            if let file = cacheFile, let data = FileManager.default.contents(atPath: file) {
                // A damaged cache is only a cache: start again.
                entries = (try? JSONDecoder().decode([String: Entry].self, from: data)) ?? [:]
            }
            loaded = entries
            return entries
        }
    }

    /// Adds an entry and writes the cache (atomically; a failure only costs a hash next time).
    private static func remember(_ entry: Entry, for key: String) {
        let entries = cache.withLock { loaded -> [String: Entry] in
            var entries = loaded ?? [:]
            entries[key] = entry
            loaded = entries
            return entries
        }
        // The identity cache only saves hashing again: a cache that cannot be written costs time, not
        // results.
        guard let file = cacheFile, let data = try? JSONEncoder().encode(entries) else { return }
        let folder = (file as NSString).deletingLastPathComponent
        // As above: the cache is an optimisation, so failing to write it is not an error.
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Likewise: an unwritten cache is hashed again next time.
        try? data.write(to: URL(fileURLWithPath: file), options: .atomic)
    }
}
