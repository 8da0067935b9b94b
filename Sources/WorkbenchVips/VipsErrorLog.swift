import CVips
import Foundation
import Synchronization

/// Reads libvips' error messages without losing another thread's.
///
/// libvips keeps one error buffer for the whole process. Clearing it before each call (the usual
/// pattern) wipes the message of a call failing on another thread at the same moment. Instead,
/// each call notes what the buffer holds when it starts and, if it fails, takes what was added
/// since (which may include another call's message, never lose its own); the buffer is cleared
/// when no call is in flight.
enum VipsErrorLog {
    private static let inFlight = Mutex(0)

    /// Runs a libvips call; `failed` tells from its result whether it failed.
    static func call<T>(_ body: () -> T, failed: (T) -> Bool) -> (T, String?) {
        let before = inFlight.withLock { count -> String in
            count += 1
            return String(cString: vips_error_buffer())
        }
        let result = body()
        let message = inFlight.withLock { count -> String? in
            count -= 1
            // libvips drops messages once its buffer is full (10 KiB), so a busy run clears it early.
            defer { if count == 0 || strlen(vips_error_buffer()) > 6000 { vips_error_clear() } }
            guard failed(result) else { return nil }
            let text = String(cString: vips_error_buffer())
            // libvips itself clears the buffer in places (loader sniffing); then all of it is new.
            let own = text.hasPrefix(before) ? String(text.dropFirst(before.count)) : text
            return tidy(own.isEmpty ? text : own)
        }
        return (result, message)
    }

    private static func tidy(_ text: String) -> String {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.isEmpty ? "libvips gave no message" : lines.joined(separator: "; ")
    }
}
