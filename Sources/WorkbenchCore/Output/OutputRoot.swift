import Foundation
import Synchronization

/// The folder a run writes into — or a bucket, with a local working folder for the manifest.
/// Every write is confined to it and claimed once per run.
public final class OutputRoot: Sendable {
    /// The absolute, symlink-resolved path of the root (for a bucket: of the working folder).
    public let path: String
    /// Where files go instead of `path`, when they go to a bucket.
    public let remote: (any RemoteOutput)?
    /// For messages: the folder, or the bucket's `s3://` location.
    public var location: String { remote?.location ?? path }
    private let claims = Mutex(Claims())

    /// The destinations claimed in this run. A run of a million items must not keep a million
    /// paths: each is kept as a 64-bit hash (two paths of one run share one with odds of about
    /// 10⁻⁸ at a million) with the index of the item that claimed it, and the names of the first
    /// items for the message (a clashing template clashes with the first items).
    private struct Claims {
        static let namesKept = 4096
        var owners: [UInt64: Int] = [:]
        var names: [Int: String] = [:]
    }

    /// Creates the folder if needed and checks, by creating and removing a file in it, that it
    /// can be written: a read-only disk or a missing permission is found before any work starts.
    public init(_ path: String) throws(WorkbenchError) {
        remote = nil
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        if let reason = Self.makeFolders(absolute) { throw .unusableOutputRoot(path: absolute, reason: reason) }
        self.path = Self.realPath(absolute) ?? absolute
        if let reason = Self.probe(self.path) { throw .unusableOutputRoot(path: self.path, reason: reason) }
    }

    /// Files go to `remote`; `workingFolder` (made if needed) holds the manifest while the run goes.
    public init(remote: any RemoteOutput, workingFolder: String) throws(WorkbenchError) {
        self.remote = remote
        if let reason = Self.makeFolders(workingFolder) { throw .unusableOutputRoot(path: workingFolder, reason: reason) }
        path = Self.realPath(workingFolder) ?? workingFolder
    }

    /// The absolute destination for a relative path, after checking it stays inside the root
    /// (also through symbolic links) and that no other item of this run claimed it. Missing
    /// folders are created one at a time, each only once its parent is known to be inside.
    func claim(_ relativePath: String, for item: Item) throws(WorkbenchError) -> String {
        if remote != nil { return try claimRemote(relativePath, for: item) }
        // A plain relative path ("a/b.jpg": no empty, "." or ".." component) is already standard;
        // Foundation's URL standardisation, a tenth of a small item's time, is for the rest.
        let plain = !relativePath.hasPrefix("/") && !relativePath.isEmpty
            && relativePath.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
        let candidate = plain ? (path.hasSuffix("/") ? path : path + "/") + relativePath
            : URL(fileURLWithPath: path).appendingPathComponent(relativePath).standardizedFileURL.path
        guard candidate.hasPrefix(path + "/") else {
            throw .pathOutsideOutputRoot(path: relativePath, root: path)
        }
        let components = candidate.dropFirst(path.count + 1).split(separator: "/").map(String.init)
        var folder = path
        for component in components.dropLast() {
            let next = folder + "/" + component
            if mkdir(next, 0o755) != 0 && errno != EEXIST {
                throw .writeFailed(path: candidate, reason: "cannot create its folder \"\(next)\" (\(String(cString: strerror(errno))))")
            }
            // It existed (or raced into existence): where does it really lead?
            guard let real = Self.realPath(next), real == path || real.hasPrefix(path + "/") else {
                throw .pathOutsideOutputRoot(path: relativePath, root: path)
            }
            var info = stat()
            guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw .writeFailed(path: candidate, reason: "\"\(next)\" is not a folder")
            }
            folder = real
        }
        let destination = folder + "/" + (components.last ?? "")
        try claimOnce(destination, relativePath: relativePath, for: item)
        return destination
    }

    /// A key below the bucket's prefix: no folders to make, nothing to follow; the same
    /// confinement (no "..", no absolute path) and the same claim once per run.
    private func claimRemote(_ relativePath: String, for item: Item) throws(WorkbenchError) -> String {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard !relativePath.hasPrefix("/"), !relativePath.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw .pathOutsideOutputRoot(path: relativePath, root: location)
        }
        try claimOnce(relativePath, relativePath: relativePath, for: item)
        return relativePath
    }

    private func claimOnce(_ destination: String, relativePath: String, for item: Item) throws(WorkbenchError) {
        let key = ContentHash.number(destination)
        let owner = claims.withLock { claims -> String? in
            if let index = claims.owners[key] { return claims.names[index].map { "\"\($0)\"" } ?? "number \(index) ({index})" }
            claims.owners[key] = item.index
            if claims.names.count < Claims.namesKept { claims.names[item.index] = item.name }
            return nil
        }
        if let owner { throw .outputCollision(path: relativePath, firstItem: owner) }
    }

    /// Removes the temporary files that runs killed mid-write (SIGKILL, a power cut) left in
    /// this root. Files of runs still alive (another process writing here now) are left alone.
    /// Returns the paths removed.
    @discardableResult
    public func removeStaleTemporaryFiles() -> [String] {
        // readdir, not FileManager: every run walks the whole output tree, a million files
        // when the run is large, and only dot-names can be ours.
        var removed: [String] = []
        var folders = [""]
        while let relative = folders.popLast() {
            FolderEntries.forEach(in: relative.isEmpty ? path : path + "/" + relative) { name, entryType in
                let child = relative.isEmpty ? name : relative + "/" + name
                var type = entryType
                if type == UInt8(DT_UNKNOWN) {
                    var info = stat()
                    guard lstat(path + "/" + child, &info) == 0 else { return }
                    type = (info.st_mode & S_IFMT) == S_IFDIR ? UInt8(DT_DIR) : UInt8(DT_REG)
                }
                // Symbolic links are not followed: they may lead out of the root.
                if type == UInt8(DT_DIR) {
                    folders.append(child)
                    return
                }
                guard name.utf8.first == UInt8(ascii: "."), let pid = AtomicFile.writer(ofTemporaryName: name), pid != getpid(),
                      kill(pid, 0) != 0 && errno == ESRCH else { return }
                if unlink(path + "/" + child) == 0 { removed.append(child) }
            }
        }
        return removed
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

    /// Nil if a file can be created in `folder`, else the system's reason.
    private static func probe(_ folder: String) -> String? {
        let name = "\(folder)/.workbench-probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return "it cannot be written (\(String(cString: strerror(errno))))" }
        // The probe answered; removing it is tidying, not part of the answer.
        close(fd)
        unlink(name)
        return nil
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
