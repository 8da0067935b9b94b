import Foundation

/// A file written piece by piece that readers only ever see whole: the pieces go to a temporary
/// file beside the destination, renamed over it by `commit`. A report of a million items is
/// written as the items finish instead of held until the end; a run cut short leaves nothing
/// (an abrupt exit removes the temporary file like any write in flight, and so does dropping
/// the writer without committing).
public final class AtomicFileWriter {
    public let destination: String
    private let temporary: String
    private var descriptor: Int32
    private var pending: [UInt8] = []
    /// The first error, reported by `commit`.
    private var failure: Int32?
    private static let flushSize = 1 << 16

    /// Creates the temporary file; throws when the destination's folder cannot take it.
    public init(destination: String) throws(WorkbenchError) {
        self.destination = destination
        temporary = AtomicFile.temporaryPath(for: destination)
        AtomicFile.begin(temporary)
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            AtomicFile.end(temporary)
            throw AtomicFile.failure(destination, code)
        }
        pending.reserveCapacity(Self.flushSize)
    }

    public func write(_ text: String) {
        pending.append(contentsOf: text.utf8)
        if pending.count >= Self.flushSize { flush() }
    }

    public func write(_ data: Data) {
        pending.append(contentsOf: data)
        if pending.count >= Self.flushSize { flush() }
    }

    private func flush() {
        guard descriptor >= 0, failure == nil else { pending.removeAll(keepingCapacity: true); return }
        pending.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let n = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += n
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Puts the file in place; throws (and leaves nothing) when any write failed.
    public func commit() throws(WorkbenchError) {
        flush()
        guard descriptor >= 0 else { return }
        if close(descriptor) != 0, failure == nil { failure = errno }
        descriptor = -1
        defer { AtomicFile.end(temporary) }
        if let failure {
            // Cleanup after the failure being reported; a temporary file left behind is swept
            // by the next run (`OutputRoot.removeStaleTemporaryFiles`), so unlink's own result changes nothing.
            unlink(temporary)
            throw AtomicFile.failure(destination, failure)
        }
        if rename(temporary, destination) != 0 {
            let code = errno
            unlink(temporary)
            throw AtomicFile.failure(destination, code)
        }
    }

    /// Removes what was written; the destination is left as it was.
    public func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporary)
        AtomicFile.end(temporary)
    }

    deinit { discard() }
}
