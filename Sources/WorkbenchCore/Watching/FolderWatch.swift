import Foundation
import Glibc
import Synchronization

/// What happened in a watched folder tree (`FolderWatch`).
public enum FolderEvent: Sendable, Equatable {
    /// A file was closed after writing, or renamed into the tree: whole, ready to read.
    case arrived(String)
    /// A file was deleted, or renamed out of the tree.
    case removed(String)
    /// A folder appeared (made, or renamed in): its files may have arrived before it was
    /// watched, so they should be looked at.
    case folderAppeared(String)
    /// Events were lost (the kernel's queue overflowed) or a folder could not be watched: only
    /// a listing of the tree says what is there now. `reason` says why, for the log.
    case mustList(reason: String)
    /// The watched folder itself was deleted or moved away: nothing more will arrive.
    case sourceLost(String)
}

/// A folder tree watched with inotify, its events handed to `handler` on a thread of its own.
///
/// A file counts once whole: closed after writing (`IN_CLOSE_WRITE`) or renamed in
/// (`IN_MOVED_TO`, how rsync, scp and most uploaders finish), never while a writer holds it.
/// With `subfolders`, every folder below is watched too, new ones as they appear. While nothing
/// happens the thread sleeps in `poll`: an idle watch costs no CPU.
public final class FolderWatch: Sendable {
    private let descriptor: Int32
    /// Written once by `stop()` to wake the thread out of `poll`.
    private let wake: (read: Int32, write: Int32)
    private let folders = Mutex<[Int32: String]>([:])
    private let subfolders: Bool
    private let root: String
    private let handler: @Sendable (FolderEvent) -> Void
    private let ended = DispatchSemaphore(value: 0)

    /// Starts watching `root` (and, with `subfolders`, every folder below it).
    public init(root: String, subfolders: Bool, handler: @escaping @Sendable (FolderEvent) -> Void) throws(WorkbenchError) {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        guard descriptor >= 0 else { throw .badInputs("Cannot watch \"\(root)\": \(String(cString: strerror(errno))).") }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0, fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0 else {
            close(descriptor)
            throw .badInputs("Cannot watch \"\(root)\": \(String(cString: strerror(errno))).")
        }
        self.descriptor = descriptor
        self.wake = (ends[0], ends[1])
        self.subfolders = subfolders
        self.root = root
        self.handler = handler
        if let problem = add(root, recursing: subfolders) {
            close(descriptor)
            close(ends[0])
            close(ends[1])
            throw .badInputs("Cannot watch \"\(root)\": \(problem).")
        }
        Thread.detachNewThread { [self] in
            readEvents()
            ended.signal()
        }
    }

    deinit {
        close(descriptor)
        close(wake.read)
        close(wake.write)
    }

    /// Stops watching; returns once no event will be handed on any more.
    public func stop() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        ended.wait()
    }

    /// What inotify reports of each folder.
    private static let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_DELETE)
        | UInt32(IN_CREATE) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF) | UInt32(IN_ONLYDIR) | UInt32(IN_EXCL_UNLINK)

    /// Watches `folder` (and the folders below it, with `recursing`); the problem, in words, when
    /// the folder itself cannot be watched.
    private func add(_ folder: String, recursing: Bool) -> String? {
        let watch = inotify_add_watch(descriptor, folder, Self.mask)
        guard watch >= 0 else {
            return errno == ENOSPC
                ? "the system's limit on watched folders is reached (raise it: sysctl fs.inotify.max_user_watches=524288)"
                : String(cString: strerror(errno))
        }
        folders.withLock { $0[watch] = folder }
        guard recursing else { return nil }
        // A folder that cannot be listed (gone already, or unreadable) has no folders to watch.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where !name.hasPrefix(".") {
            let path = folder + "/" + name
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { continue }
            if let problem = add(path, recursing: true) { handler(.mustList(reason: "\(path) is not watched: \(problem)")) }
        }
        return nil
    }

    private func readEvents() {
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        var waits = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        while true {
            guard poll(&waits, 2, -1) >= 0 || errno == EINTR else { return }
            if waits[1].revents != 0 { return }
            guard waits[0].revents != 0 else { continue }
            let count = read(descriptor, buffer, size)
            guard count > 0 else { continue }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = event.len > 0 ? String(cString: (buffer + nameStart).assumingMemoryBound(to: CChar.self)) : ""
                offset = nameStart + Int(event.len)
                handle(event, name: name)
            }
        }
    }

    private func handle(_ event: inotify_event, name: String) {
        let mask = event.mask
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            handler(.mustList(reason: "the kernel's event queue overflowed (fs.inotify.max_queued_events)"))
            return
        }
        if mask & UInt32(IN_IGNORED) != 0 {
            folders.withLock { _ = $0.removeValue(forKey: event.wd) }
            return
        }
        guard let folder = folders.withLock({ $0[event.wd] }) else { return }
        if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)) != 0 {
            if folder == root { handler(.sourceLost("the watched folder \(root) was \(mask & UInt32(IN_MOVE_SELF) != 0 ? "moved away" : "deleted")")) }
            return
        }
        guard !name.isEmpty else { return }
        let path = folder + "/" + name
        if mask & UInt32(IN_ISDIR) != 0 {
            if subfolders, mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0, !name.hasPrefix(".") {
                if let problem = add(path, recursing: true) { handler(.mustList(reason: "\(path) is not watched: \(problem)")) }
                handler(.folderAppeared(path))
            }
            return
        }
        if mask & (UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO)) != 0 {
            handler(.arrived(path))
        } else if mask & (UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM)) != 0 {
            handler(.removed(path))
        }
    }
}
