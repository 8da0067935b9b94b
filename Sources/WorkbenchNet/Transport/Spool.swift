import Foundation
import Glibc
import WorkbenchCore

/// A large download body on disk instead of in memory.
///
/// The file is created in the temporary folder and written as the bytes arrive. When the
/// transfer succeeds it is mapped into memory and unlinked at once: the mapping keeps the
/// bytes readable (as file pages the kernel can drop and reread), and the disk space is given
/// back when the last node lets go of them. A failed or cancelled transfer unlinks it.
final class Spool {
    /// Nil once the file is unlinked (its name may then belong to another file).
    private var path: String?
    private var descriptor: Int32

    /// Files this module spools start with this name, in the temporary folder.
    static let prefix = "workbench-download-"

    init?() {
        var template = Array((NSTemporaryDirectory() + "/" + Self.prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        guard fd >= 0 else { return nil }
        descriptor = fd
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Appends `bytes`; false if the disk refused them (full, gone).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// The whole body, mapped, and the open file for copying it on; the file is unlinked.
    /// Nil if it cannot be read back.
    func finish(count: Int) -> (Data, SpooledFile)? {
        // Nil is this function's answer (see above): the caller retries the transfer in memory.
        guard let path, let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            discard()
            return nil
        }
        let file = SpooledFile(descriptor: descriptor, count: count)
        descriptor = -1
        discard()
        return (data, file)
    }

    /// Removes the file (at the end, or for a failed or cancelled transfer).
    func discard() {
        if descriptor >= 0 {
            // The file is already unlinked: closing it frees it, and a failure loses nothing.
            close(descriptor)
            descriptor = -1
        }
        if let path { unlink(path) }
        path = nil
    }
}
