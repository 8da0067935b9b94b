import Foundation
import Synchronization

/// Writes a file so that readers see either nothing or the whole file: the bytes go to a
/// temporary file in the same folder, which is renamed over the destination at the end.
enum AtomicFile {
    /// Temporary files being written now, so an abrupt exit can remove them.
    private static let inFlight = Mutex<Set<String>>([])

    static func write(_ bytes: Bytes, to destination: String, cancellation: CancellationToken) throws(WorkbenchError) {
        try write(bytes.data, file: bytes.file, to: destination, cancellation: cancellation)
    }

    static func write(_ data: Data, file: SpooledFile? = nil, to destination: String,
                      cancellation: CancellationToken) throws(WorkbenchError) {
        let temporary = temporaryPath(for: destination)
        begin(temporary)
        defer { end(temporary) }

        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failed(destination, errno) }
        var failure: Int32?
        if let file {
            // Kernel to kernel: the bytes never enter this process's memory.
            var offset: off_t = 0
            while Int(offset) < file.count {
                let n = sendfile(fd, file.descriptor, &offset, file.count - Int(offset))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    failure = n < 0 ? errno : EIO // 0: the spooled download ended early
                    break
                }
            }
        } else {
        data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset) // safe: count > 0 here
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        }
        if close(fd) != 0, failure == nil { failure = errno }
        if let failure {
            // Cleanup after the failure being reported (a leftover is swept by the next run).
            unlink(temporary)
            throw failed(destination, failure)
        }
        // The last moment to honour a cancellation: after the rename the file is output.
        if cancellation.isCancelled {
            unlink(temporary)
            throw .cancelled
        }
        if rename(temporary, destination) != 0 {
            let code = errno
            unlink(temporary)
            throw failed(destination, code)
        }
    }

    /// The error for a failed write: a full or read-only disk concerns every later write too, so
    /// it stops the run; anything else fails this item.
    private static func failed(_ destination: String, _ code: Int32) -> WorkbenchError {
        let reason = String(cString: strerror(code))
        switch code {
        case ENOSPC, EDQUOT, EROFS:
            return .outputStopped(path: destination, reason: reason)
        default:
            return .writeFailed(path: destination, reason: reason)
        }
    }

    /// A new temporary path beside `destination`.
    static func temporaryPath(for destination: String) -> String {
        // Split by hand and numbered from a random start: NSString's path methods, getpid and
        // getrandom for every file were a fiftieth of a small item's time.
        let utf8 = destination.utf8
        let slash = utf8.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { String(destination[..<$0]) } ?? "."
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        let number = temporaryNumbers.wrappingAdd(1, ordering: .relaxed).oldValue
        return folder + "/." + name + "." + processID + "-" + String(number) + suffix
    }

    /// This process's id, as temporary names carry it (`removeStaleTemporaryFiles` reads it back).
    private static let processID = String(getpid())
    /// Numbers for temporary names: unique in this process, from a random start so that a run
    /// reusing a killed run's process id does not meet its leftovers.
    private static let temporaryNumbers = Atomic<UInt32>(UInt32.random(in: 0...UInt32.max))

    /// Notes a temporary file being written, for `removeInFlight`.
    static func begin(_ temporary: String) { inFlight.withLock { _ = $0.insert(temporary) } }

    /// The temporary file is renamed into place or removed.
    static func end(_ temporary: String) { inFlight.withLock { _ = $0.remove(temporary) } }

    /// Why a write failed, for an errno.
    static func failure(_ destination: String, _ code: Int32) -> WorkbenchError { failed(destination, code) }

    /// Temporary names end with this; `.<name>.<pid>-<random>.workbench-tmp`.
    static let suffix = ".workbench-tmp"

    /// The process that writes (or wrote) a temporary file of this name, or nil if it is none of ours.
    static func writer(ofTemporaryName name: String) -> pid_t? {
        guard name.hasPrefix("."), name.hasSuffix(suffix) else { return nil }
        let stem = name.dropLast(suffix.count)
        guard let dot = stem.lastIndex(of: "."), let dash = stem[dot...].firstIndex(of: "-") else { return nil }
        return pid_t(stem[stem.index(after: dot)..<dash])
    }

    /// Removes every temporary file still being written; for an exit that cannot wait for them.
    static func removeInFlight() {
        inFlight.withLock { paths in
            for path in paths { unlink(path) }
        }
    }
}
