import Foundation
import Glibc

/// What a helper process prints (a kernel's debugging `print`, a C library's chatter), read
/// from the pipe that is its standard output and error, and passed on line by line with the
/// plugin's name in front: `halftone: …`. So the workbench's standard output carries only what
/// the workbench writes (item lines, `--events -`), however a plugin behaves.
final class HelperOutput: Sendable {
    /// Longest line passed on whole; a longer one is cut into pieces of this size.
    static let longestLine = 4096

    /// Starts reading `fd` (the pipe's read end, which this owns) on a thread of its own until
    /// every writer has closed it, i.e. the helper is gone.
    static func start(reading fd: Int32, label: String, sink: @escaping @Sendable (String) -> Void) {
        let thread = Thread {
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            func pass(_ bytes: ArraySlice<UInt8>) {
                let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
                sink("\(label): \(text)")
            }
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending += chunk[0..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    pass(pending[..<newline])
                    pending.removeSubrange(...newline)
                }
                while pending.count >= longestLine {
                    pass(pending[..<longestLine])
                    pending.removeSubrange(..<longestLine)
                }
            }
            if !pending.isEmpty { pass(pending[...]) }
            close(fd) // the pipe's reading end, at its end of file: nothing left to lose
        }
        thread.name = "plugin output"
        thread.start()
    }

    /// Where lines go unless the host says otherwise: standard error, one write per line.
    static let standardError: @Sendable (String) -> Void = { line in
        let bytes = Array((line + "\n").utf8)
        // A line that cannot be written to standard error has nowhere else to go.
        bytes.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    }
}
