import CVips
import Foundation

/// Reads libvips' error messages without losing another thread's.
///
/// libvips keeps one error buffer for the whole process. Clearing it before each call (the usual
/// pattern) wipes the message of a call failing on another thread at the same moment. Instead,
/// each call notes what the buffer holds when it starts and, if it fails, takes what was added
/// since (which may include another call's message, never lose its own); the buffer is cleared
/// when no call is in flight.
///
/// Some of libvips' format tests also *freeze* the buffer while they run, dropping every
/// message logged meanwhile. Calls that run those tests (finding the loader of an unknown
/// format) are `exclusive`: they wait until no other call is in flight and hold new ones back.
enum VipsErrorLog {
    private final class Gate: @unchecked Sendable {
        // Safe: every var is read and written with `condition` locked.
        let condition = NSCondition()
        var inFlight = 0
        var exclusiveActive = false
        var exclusiveWaiting = 0
    }

    private static let gate = Gate()

    /// Runs a libvips call; `failed` tells from its result whether it failed.
    static func call<T>(exclusive: Bool = false, _ body: () -> T, failed: (T) -> Bool) -> (T, String?) {
        let before = enter(exclusive: exclusive)
        let result = body()
        let message = leave(exclusive: exclusive, failed: failed(result), before: before)
        return (result, message)
    }

    private static func enter(exclusive: Bool) -> String {
        gate.condition.lock()
        defer { gate.condition.unlock() }
        if exclusive {
            gate.exclusiveWaiting += 1
            while gate.inFlight > 0 || gate.exclusiveActive { gate.condition.wait() }
            gate.exclusiveWaiting -= 1
            gate.exclusiveActive = true
        } else {
            // Waiting exclusive calls go first, so a steady stream of calls cannot starve them.
            while gate.exclusiveActive || gate.exclusiveWaiting > 0 { gate.condition.wait() }
        }
        gate.inFlight += 1
        return String(cString: vips_error_buffer())
    }

    private static func leave(exclusive: Bool, failed: Bool, before: String) -> String? {
        gate.condition.lock()
        defer { gate.condition.unlock() }
        gate.inFlight -= 1
        if exclusive { gate.exclusiveActive = false }
        gate.condition.broadcast()
        // libvips drops messages once its buffer is full (10 KiB), so a busy run clears it early.
        defer { if gate.inFlight == 0 || strlen(vips_error_buffer()) > 6000 { vips_error_clear() } }
        guard failed else { return nil }
        let text = String(cString: vips_error_buffer())
        // libvips itself clears the buffer in places; then all of it is new.
        let own = text.hasPrefix(before) ? String(text.dropFirst(before.count)) : text
        return tidy(own.isEmpty ? text : own)
    }

    private static func tidy(_ text: String) -> String {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.isEmpty ? "libvips gave no message" : lines.joined(separator: "; ")
    }
}
