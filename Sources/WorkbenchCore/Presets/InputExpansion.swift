import Foundation

/// Turns a preset's `inputs` (or the command line's) into the ordered list of items.
public enum InputExpansion {
    /// File extensions taken when a folder is given as an input.
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "gif", "heic", "heif", "avif", "jxl"]

    /// The items of a preset, lazily for `file` lists. Relative paths resolve against the preset's folder.
    /// `remote` lists `s3://` inputs; without it, a preset that has them is refused.
    public static func source(of preset: Preset, remote: (any RemoteListing)? = nil) throws(WorkbenchError) -> ItemSource {
        guard let inputs = preset.inputs else {
            throw .badInputs("The preset \"\(preset.file)\" has no \"inputs\"; give inputs on the command line or add an \"inputs\" key.")
        }
        let base = preset.baseDirectory
        switch inputs {
        case .list(let sources):
            // A listed file that has gone fails its item alone, as one of a glob's would.
            return try packedItems(sources, relativeTo: base).source
        case .map(let entries):
            return .list(entries.enumerated().map { i, entry in
                Item(index: i, name: entry.name, source: resolve(entry.source, relativeTo: base))
            })
        case .glob(let pattern):
            let absolute = pattern.hasPrefix("/") ? pattern : base + "/" + pattern
            let matches = TreeGlob(absolute).matches()
            if matches.isEmpty {
                throw .badInputs("The glob \"\(pattern)\" in \(preset.file) matches no files (looked in \"\(base)\"; files and folders starting with \".\" are matched only by a pattern part starting with \".\").")
            }
            var items = PackedItems()
            for match in matches { items.append(source: match.path, directory: match.directory) }
            return items.source
        case .bucket(let url, let glob):
            guard let remote else {
                throw .badInputs("The inputs of \(preset.file) are in a bucket (\(url)), which this program cannot list.")
            }
            return try remote.items(under: url, matching: glob)
        case .file(let listPath):
            let path = resolve(listPath, relativeTo: base)
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw .badInputs("Cannot read the input list \"\(path)\" named in \(preset.file) (inputs.file).")
            }
            return .lines(of: path, relativeTo: (path as NSString).deletingLastPathComponent)
        }
    }

    /// Items from command-line arguments: URLs, files, or folders (their images, sorted).
    /// Relative paths resolve against `directory`.
    public static func expand(_ sources: [String], relativeTo directory: String) throws(WorkbenchError) -> [Item] {
        try checkExist(sources, relativeTo: directory)
        let packed = try packedItems(sources, relativeTo: directory)
        return (0..<packed.count).map { packed[$0] }
    }

    /// The same items, made one at a time as a run takes them: a folder of a million photos
    /// costs its names' bytes, not a million `Item`s.
    /// An `s3://bucket/prefix/` (ending in "/") lists the objects under it, through `remote`.
    public static func source(of sources: [String], relativeTo directory: String,
                              remote: (any RemoteListing)? = nil) throws(WorkbenchError) -> ItemSource {
        if let prefix = sources.first(where: isBucketPrefix) {
            guard sources.count == 1 else {
                throw .badInputs("\(prefix) is a bucket prefix: give it alone on the command line, or list several as objects (s3://bucket/key).")
            }
            guard let remote else { throw .badInputs("\(prefix) is in a bucket, which this program cannot list.") }
            return try remote.items(under: prefix, matching: nil)
        }
        try checkExist(sources, relativeTo: directory)
        return try packedItems(sources, relativeTo: directory).source
    }

    /// Inputs typed on a command line are there, or the run does not start: a mistyped folder
    /// is the same mistake as a glob that matches nothing, and gets the same exit status.
    private static func checkExist(_ sources: [String], relativeTo directory: String) throws(WorkbenchError) {
        for source in sources where !source.contains("://") {
            let resolved = resolve(source, relativeTo: directory)
            guard FileManager.default.fileExists(atPath: resolved) else {
                throw .badInputs("No file or folder \"\(source)\"" + (source.hasPrefix("/") ? "" : " (looked for \(resolved))")
                                 + "; give paths that exist, or URLs.")
            }
        }
    }

    static func packedItems(_ sources: [String], relativeTo directory: String) throws(WorkbenchError) -> PackedItems {
        var items = PackedItems()
        for source in sources {
            let resolved = resolve(source, relativeTo: directory)
            var isFolder: ObjCBool = false
            if !source.contains("://"), FileManager.default.fileExists(atPath: resolved, isDirectory: &isFolder), isFolder.boolValue {
                let images = imageNames(in: resolved)
                if images.count == 0 { throw .badInputs("The folder \"\(source)\" has no image files.") }
                for position in images.sortedPositions() { items.append(source: resolved + "/" + images[position]) }
            } else {
                items.append(source: resolved)
            }
        }
        return items
    }

    /// The names of a folder's image files (not hidden ones), read straight from the directory
    /// so a huge folder is never a `[String]`.
    private static func imageNames(in folder: String) -> PackedStrings {
        var names = PackedStrings()
        FolderEntries.forEach(in: folder) { name, _ in
            guard !name.hasPrefix("."), let dot = name.lastIndex(of: "."),
                  imageExtensions.contains(name[name.index(after: dot)...].lowercased()) else { return }
            names.append(name)
        }
        return names
    }

    static func isBucketPrefix(_ source: String) -> Bool {
        source.lowercased().hasPrefix("s3://") && source.hasSuffix("/")
    }

    static func resolve(_ source: String, relativeTo base: String) -> String {
        if source.contains("://") || source.hasPrefix("/") { return source }
        return URL(fileURLWithPath: base).appendingPathComponent(source).standardizedFileURL.path
    }

}
