import Foundation

/// A glob over a folder tree: `*`, `?` and `[…]` within one path part (fnmatch), `{jpg,jpeg}`
/// for alternatives, and `**` for any number of folders (none included). A part with a wildcard
/// matches names in either case — `*.jpg` takes a camera's `IMG_0001.JPG` — as people name
/// their files; a part without one names its file or folder exactly. Files and folders whose
/// names start with "." are matched only by a pattern part that starts with "." too. Each match
/// knows its folder relative to the pattern's fixed part (the root), for `{dir}`.
struct TreeGlob {
    let root: String
    let parts: [String]

    init(_ pattern: String) {
        let components = pattern.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let fixed = components.prefix { !Self.isPattern($0) }
        // The last part names files even when it has no wildcard ("photos/a.jpg").
        let rootParts = fixed.count == components.count ? Array(fixed.dropLast()) : Array(fixed)
        root = (pattern.hasPrefix("/") ? "/" : "") + rootParts.joined(separator: "/")
        parts = Array(components.dropFirst(rootParts.count))
    }

    static func isPattern(_ part: String) -> Bool { part.contains { "*?[{".contains($0) } }

    /// glibc's FNM_CASEFOLD, which Swift's Glibc module does not name.
    private static let caseFold: Int32 = 1 << 4

    /// Whether `name` matches the pattern part, any of its `{…,…}` alternatives, in either case.
    static func matches(_ part: String, _ name: String) -> Bool {
        alternatives(of: part).contains { fnmatch($0, name, caseFold) == 0 }
    }

    /// The part with its first `{a,b,…}` group expanded (and the groups after it, in turn);
    /// a part without one is itself.
    static func alternatives(of part: String) -> [String] {
        guard let open = part.firstIndex(of: "{"), let close = part[open...].firstIndex(of: "}") else { return [part] }
        let head = part[..<open], tail = String(part[part.index(after: close)...])
        let choices = part[part.index(after: open)..<close].split(separator: ",", omittingEmptySubsequences: false)
        return choices.flatMap { choice in alternatives(of: tail).map { head + choice + $0 } }
    }

    /// Whether the file at `path` is one the glob matches, and its folder relative to the root
    /// (`{dir}`); nil when it is not (outside the root, hidden where the pattern does not say
    /// so, or not matching). What `matches()` would find, for one path: a watch's new arrival.
    func match(_ path: String) -> String? {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        guard path.hasPrefix(prefix) else { return nil }
        let names = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let found = Self.match(names[...], parts[...], relative: []) else { return nil }
        return found.joined(separator: "/")
    }

    /// Whether a file under the root can match from a folder below it: the pattern has a
    /// folder part (`**` or `*/`), so a watch must follow subfolders.
    var reachesSubfolders: Bool { parts.count > 1 }

    private static func match(_ names: ArraySlice<String>, _ parts: ArraySlice<String>, relative: [String]) -> [String]? {
        guard let part = parts.first, let name = names.first else { return nil }
        if part == "**" {
            // Zero folders, or one more folder (not a hidden one) and `**` again.
            if let found = match(names, parts.dropFirst(), relative: relative) { return found }
            guard names.count > 1, !name.hasPrefix(".") else { return nil }
            return match(names.dropFirst(), parts, relative: relative + [name])
        }
        let fits = isPattern(part) ? (!name.hasPrefix(".") || part.hasPrefix(".")) && matches(part, name) : part == name
        guard fits else { return nil }
        if parts.count == 1 { return names.count == 1 ? relative : nil }
        return names.count > 1 ? match(names.dropFirst(), parts.dropFirst(), relative: relative + [name]) : nil
    }

    /// Every matching file (not folder), sorted by path.
    func matches() -> [(path: String, directory: String)] {
        var found: [(path: String, directory: String)] = []
        walk(folder: root.isEmpty ? "/" : root, relative: [], parts: parts[...], into: &found)
        return found.sorted { $0.path < $1.path }
    }

    private func walk(folder: String, relative: [String], parts: ArraySlice<String>, into found: inout [(path: String, directory: String)]) {
        guard let part = parts.first else { return }
        let rest = parts.dropFirst()
        let files = FileManager.default
        if part == "**" {
            // Zero folders, then each folder below (not hidden ones).
            walk(folder: folder, relative: relative, parts: rest, into: &found)
            // A folder that cannot be listed matches nothing below it, as a shell's ** does.
            for name in (try? files.contentsOfDirectory(atPath: folder))?.sorted() ?? [] where !name.hasPrefix(".") {
                let path = folder + "/" + name
                var isFolder: ObjCBool = false
                if files.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                    walk(folder: path, relative: relative + [name], parts: parts, into: &found)
                }
            }
            return
        }
        let names: [String]
        if Self.isPattern(part) {
            // As above: an unlistable folder matches nothing, as a shell's glob.
            let all = (try? files.contentsOfDirectory(atPath: folder)) ?? []
            names = all.filter { (!$0.hasPrefix(".") || part.hasPrefix(".")) && Self.matches(part, $0) }
        } else {
            names = [part]
        }
        for name in names.sorted() {
            let path = (folder == "/" ? "" : folder) + "/" + name
            var isFolder: ObjCBool = false
            guard files.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
            if rest.isEmpty {
                if !isFolder.boolValue { found.append((path, relative.joined(separator: "/"))) }
            } else if isFolder.boolValue {
                walk(folder: path, relative: relative + [name], parts: rest, into: &found)
            }
        }
    }
}
