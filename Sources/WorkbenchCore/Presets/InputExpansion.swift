import Foundation

/// Turns a preset's `inputs` (or the command line's) into the ordered list of items.
public enum InputExpansion {
    /// File extensions taken when a folder is given as an input.
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "tif", "tiff", "gif", "heic", "heif", "avif", "jxl"]

    /// The items of a preset, lazily for `file` lists. Relative paths resolve against the preset's folder.
    public static func source(of preset: Preset) throws(WorkbenchError) -> ItemSource {
        guard let inputs = preset.inputs else {
            throw .badInputs("The preset \"\(preset.file)\" has no \"inputs\"; give inputs on the command line or add an \"inputs\" key.")
        }
        let base = preset.baseDirectory
        switch inputs {
        case .list(let sources):
            return .list(try expand(sources, relativeTo: base))
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
            return .list(matches.enumerated().map { Item(index: $0, source: $1.path, directory: $1.directory) })
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
        var items: [Item] = []
        for source in sources {
            let resolved = resolve(source, relativeTo: directory)
            var isFolder: ObjCBool = false
            if !source.contains("://"), FileManager.default.fileExists(atPath: resolved, isDirectory: &isFolder), isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: resolved)) ?? []
                let images = names.filter { !$0.hasPrefix(".") && imageExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
                if images.isEmpty { throw .badInputs("The folder \"\(source)\" has no image files.") }
                for name in images { items.append(Item(index: items.count, source: resolved + "/" + name)) }
            } else {
                items.append(Item(index: items.count, source: resolved))
            }
        }
        return items
    }

    static func resolve(_ source: String, relativeTo base: String) -> String {
        if source.contains("://") || source.hasPrefix("/") { return source }
        return URL(fileURLWithPath: base).appendingPathComponent(source).standardizedFileURL.path
    }

}
