import Foundation

/// The files a watch takes as items, and where they lie: the preset's own `inputs` glob, or a
/// folder given instead (its image files, as `run` takes a folder). A new file is an input
/// exactly when `run` would have listed it, so a watch and a later run agree.
public struct WatchedInputs: Sendable {
    let glob: TreeGlob
    /// The folder whose tree is watched (the glob's fixed part).
    public var root: String { glob.root.isEmpty ? "/" : glob.root }
    /// Whether folders below the root hold inputs, so they are watched too.
    public var subfolders: Bool { glob.reachesSubfolders }

    /// The preset's inputs, or `source` (a folder) in their place. A bucket, URLs or a list of
    /// files are not watched here.
    public init(preset: Preset, source: String?, relativeTo directory: String) throws(WorkbenchError) {
        if let source {
            guard !source.contains("://") else {
                throw .badInputs("\(source) is not a folder: watch takes a folder here (buckets are not watched yet).")
            }
            let folder = InputExpansion.resolve(source, relativeTo: directory)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw .badInputs("No folder \"\(source)\" to watch" + (source.hasPrefix("/") ? "" : " (looked for \(folder))") + "; give a folder that exists.")
            }
            let extensions = InputExpansion.imageExtensions.sorted().joined(separator: ",")
            glob = TreeGlob(folder + "/*.{\(extensions)}")
            return
        }
        guard case .glob(let pattern)? = preset.inputs else {
            throw .badInputs("The preset \"\(preset.file)\" has no \"inputs\" glob to watch; give the folder to watch after the preset.")
        }
        glob = TreeGlob(pattern.hasPrefix("/") ? pattern : preset.baseDirectory + "/" + pattern)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
            throw .badInputs("The folder \"\(root)\" of the glob \"\(pattern)\" in \(preset.file) does not exist: make it, or give the folder to watch.")
        }
    }

    /// The folder a path that is an input lies in, relative to the root (`{dir}`); nil when
    /// the path is not an input.
    public func directory(of path: String) -> String? { glob.match(path) }

    /// Every input there now, sorted: what a run would take.
    public func listing() -> [(path: String, directory: String)] { glob.matches() }

    /// Why writing into `destination` would feed the watch its own outputs (the destination is
    /// the watched folder or inside it), in words; nil when it does not.
    public func loop(into destination: String) -> String? {
        let watched = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
        let written = URL(fileURLWithPath: destination).standardizedFileURL.resolvingSymlinksInPath().path
        guard written == watched || written.hasPrefix(watched.hasSuffix("/") ? watched : watched + "/") else { return nil }
        return "The output folder \(written) is inside the watched folder \(watched): every file written would arrive as a new input. Give --out a folder outside it."
    }
}
