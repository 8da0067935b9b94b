import Foundation

/// The one folder a preset may read files from besides the inputs the user named: its own.
///
/// A preset may come from someone else, so a path in it (a logo for `read`, a loader's file, an
/// ICC profile, a font) is checked twice: when the preset loads, by its spelling (relative, no
/// `..`, no control characters, no URL scheme), and when the node runs, by where it really leads
/// (symbolic links resolved), which must be inside the preset's folder.
public enum PresetFolder {
    /// Why `path` is not a file name a preset may use, or nil.
    public static func problem(with path: String) -> String? {
        if path.isEmpty { return "the path is empty" }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "the path contains a control character"
        }
        if path.hasPrefix("/") || path.hasPrefix("~") {
            return "\"\(path)\" is absolute; a preset reads only files inside its own folder, so give a path relative to it (or pass the file as an input)"
        }
        if path.contains("://") {
            return "\"\(path)\" is a URL; a preset reads only files inside its own folder here"
        }
        if path.split(separator: "/", omittingEmptySubsequences: false).contains("..") {
            return "\"\(path)\" contains \"..\"; a preset reads only files inside its own folder"
        }
        return nil
    }

    /// The absolute path of `path` (relative to `folder`), after checking that it exists and,
    /// with every symbolic link followed, lies inside `folder`.
    public static func resolve(_ path: String, in folder: String) throws(WorkbenchError) -> String {
        if let problem = problem(with: path) { throw .outsidePresetFolder(path: path, reason: problem) }
        guard let root = OutputRoot.realPath(folder) else {
            throw .readFailed(path: folder, reason: String(cString: strerror(errno)))
        }
        guard let resolved = OutputRoot.realPath(root + "/" + path) else {
            throw .readFailed(path: root + "/" + path, reason: String(cString: strerror(errno)))
        }
        guard resolved == root || resolved.hasPrefix(root == "/" ? "/" : root + "/") else {
            throw .outsidePresetFolder(path: path, reason: "it leads to \"\(resolved)\", outside the preset's folder \"\(root)\" (through a symbolic link)")
        }
        return resolved
    }
}
