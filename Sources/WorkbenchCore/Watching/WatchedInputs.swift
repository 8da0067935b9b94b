import Foundation

/// The files a watch takes as items, and where they lie: the preset's own `inputs` (a glob, or
/// a bucket prefix with its glob), or a folder or `s3://bucket/prefix/` given instead (a
/// folder's image files, as `run` takes a folder; a prefix's objects). A new file is an input
/// exactly when `run` would have listed it, so a watch and a later run agree.
public struct WatchedInputs: Sendable {
    enum Place: Sendable {
        case folder(TreeGlob)
        /// Objects of `bucket` whose keys start with `prefix`, named below `folder` (the prefix's
        /// folder), matching `pattern`.
        case bucket(url: String, bucket: String, prefix: String, folder: String, pattern: PathPattern?, glob: String?)
    }

    let place: Place

    /// The folder whose tree is watched, or the bucket prefix's URL.
    public var root: String {
        switch place {
        case .folder(let glob): glob.root.isEmpty ? "/" : glob.root
        case .bucket(let url, _, _, _, _, _): url
        }
    }

    /// Whether the inputs are objects in a bucket (their events come over HTTP, `--listen`).
    public var isBucket: Bool { if case .bucket = place { true } else { false } }

    /// Whether folders below the root hold inputs, so they are watched too.
    public var subfolders: Bool { if case .folder(let glob) = place { glob.reachesSubfolders } else { true } }

    /// The preset's inputs, or `source` (a folder, or an `s3://bucket/prefix/`) in their place.
    /// URLs or a list of files are not watched.
    public init(preset: Preset, source: String?, relativeTo directory: String) throws(WorkbenchError) {
        if let source {
            if InputExpansion.isBucketPrefix(source) {
                place = try Self.bucket(source, glob: nil)
                return
            }
            guard !source.contains("://") else {
                throw .badInputs("\(source) is neither a folder nor an s3://bucket/prefix/ (ending in \"/\"): watch takes one of those.")
            }
            let folder = InputExpansion.resolve(source, relativeTo: directory)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw .badInputs("No folder \"\(source)\" to watch" + (source.hasPrefix("/") ? "" : " (looked for \(folder))") + "; give a folder that exists.")
            }
            let extensions = InputExpansion.imageExtensions.sorted().joined(separator: ",")
            place = .folder(TreeGlob(folder + "/*.{\(extensions)}"))
            return
        }
        switch preset.inputs {
        case .glob(let pattern)?:
            let glob = TreeGlob(pattern.hasPrefix("/") ? pattern : preset.baseDirectory + "/" + pattern)
            place = .folder(glob)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
                throw .badInputs("The folder \"\(root)\" of the glob \"\(pattern)\" in \(preset.file) does not exist: make it, or give the folder to watch.")
            }
        case .bucket(let url, let glob)?:
            place = try Self.bucket(url, glob: glob)
        default:
            throw .badInputs("The preset \"\(preset.file)\" has no \"inputs\" glob or bucket to watch; give the folder or s3://bucket/prefix/ to watch after the preset.")
        }
    }

    private static func bucket(_ url: String, glob: String?) throws(WorkbenchError) -> Place {
        let rest = url.dropFirst("s3://".count)
        guard url.lowercased().hasPrefix("s3://"), let slash = rest.firstIndex(of: "/"), slash != rest.startIndex else {
            throw .badInputs("\"\(url)\" is not an s3://bucket/prefix/ URL.")
        }
        let key = String(rest[rest.index(after: slash)...])
        // Keys are named below the prefix's folder, as the run's listing names them.
        let folder = key.lastIndex(of: "/").map { String(key[...$0]) } ?? ""
        return .bucket(url: url, bucket: String(rest[..<slash]), prefix: key, folder: folder, pattern: glob.map(PathPattern.init), glob: glob)
    }

    /// The folder a path (or `s3://bucket/key`) that is an input lies in, relative to the root
    /// (`{dir}`); nil when it is not an input.
    public func directory(of path: String) -> String? {
        switch place {
        case .folder(let glob):
            return glob.match(path)
        case .bucket(_, let bucket, let prefix, let folder, let pattern, _):
            guard path.hasPrefix("s3://\(bucket)/") else { return nil }
            let key = path.dropFirst("s3://\(bucket)/".count)
            guard key.hasPrefix(prefix) else { return nil }
            let relative = String(key.dropFirst(folder.count))
            // Folder markers are not objects to make anything of.
            guard !relative.isEmpty, !relative.hasSuffix("/"), pattern?.matches(relative) ?? true else { return nil }
            return relative.lastIndex(of: "/").map { String(relative[..<$0]) } ?? ""
        }
    }

    /// Every input there now, as a run would take them: a folder's files, or the bucket's
    /// listing through `remote`.
    public func listing(remote: (any RemoteListing)?) throws(WorkbenchError) -> ItemSource {
        switch place {
        case .folder(let glob):
            var items = PackedItems()
            for match in glob.matches() { items.append(source: match.path, directory: match.directory) }
            return items.source
        case .bucket(let url, _, _, _, _, let glob):
            guard let remote else { throw .badInputs("\(url) is in a bucket, which this program cannot list.") }
            return try remote.items(under: url, matching: glob)
        }
    }

    /// Why writing into `destination` would feed the watch its own outputs (the destination is
    /// the watched folder or prefix, or inside it), in words; nil when it does not.
    public func loop(into destination: String) -> String? {
        switch place {
        case .folder:
            guard !destination.contains("://") else { return nil }
            let watched = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
            let written = URL(fileURLWithPath: destination).standardizedFileURL.resolvingSymlinksInPath().path
            guard written == watched || written.hasPrefix(watched.hasSuffix("/") ? watched : watched + "/") else { return nil }
            return "The output folder \(written) is inside the watched folder \(watched): every file written would arrive as a new input. Give --out a folder outside it."
        case .bucket(let url, let bucket, let prefix, _, _, _):
            let written = destination.hasSuffix("/") ? destination : destination + "/"
            guard written.hasPrefix("s3://\(bucket)/\(prefix)") else { return nil }
            return "The output prefix \(destination) is inside the watched prefix \(url): every object written would arrive as a new input. Give --out a prefix outside it."
        }
    }
}
