import Foundation
import Synchronization

/// The folder a run writes into. Every write is confined to it and claimed once per run.
public final class OutputRoot: Sendable {
    /// The absolute, symlink-resolved path of the root.
    public let path: String
    private let claims = Mutex<[String: String]>([:])

    /// Creates the folder if needed.
    public init(_ path: String) throws(WorkbenchError) {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        if let reason = Self.makeFolders(absolute) { throw .unusableOutputRoot(path: absolute, reason: reason) }
        self.path = Self.realPath(absolute) ?? absolute
    }

    /// The absolute destination for a relative path, after checking it stays inside the root
    /// (also through symbolic links) and that no other item of this run claimed it.
    func claim(_ relativePath: String, for item: Item) throws(WorkbenchError) -> String {
        let candidate = URL(fileURLWithPath: path).appendingPathComponent(relativePath).standardizedFileURL.path
        guard candidate.hasPrefix(path + "/") else {
            throw .pathOutsideOutputRoot(path: relativePath, root: path)
        }
        let folder = (candidate as NSString).deletingLastPathComponent
        if let reason = Self.makeFolders(folder) {
            throw .writeFailed(path: candidate, reason: "cannot create its folder (\(reason))")
        }
        guard let realFolder = Self.realPath(folder), realFolder == path || realFolder.hasPrefix(path + "/") else {
            throw .pathOutsideOutputRoot(path: relativePath, root: path)
        }
        let destination = realFolder + "/" + (candidate as NSString).lastPathComponent
        let owner = claims.withLock { claims -> String? in
            if let owner = claims[destination] { return owner }
            claims[destination] = item.name
            return nil
        }
        if let owner { throw .outputCollision(path: relativePath, firstItem: owner) }
        return destination
    }

    /// Deletes the temporary files of writes still in progress. For an exit that cannot wait
    /// for them (a second Ctrl-C); an orderly cancellation cleans up by itself.
    public static func removeUnfinishedFiles() {
        AtomicFile.removeInFlight()
    }

    /// `mkdir -p`; returns the system's reason on failure (errno's text names the real cause,
    /// where Foundation's message does not).
    static func makeFolders(_ path: String) -> String? {
        var current = ""
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                return "\(current): \(String(cString: strerror(errno)))"
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return "\(path) is not a folder" }
        return nil
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
