import CVips
import Foundation

/// Reads libvips' error messages and warnings so that each belongs to the call that caused it.
///
/// libvips keeps one error buffer for the whole process, and its warnings go to one log
/// handler, whatever thread or image they concern. So every call notes what the buffer and the
/// warning list hold when it starts and takes what was added until it ends, and it knows whether
/// another call ran at the same time. When none did (`clean`), what it took is its own. When one
/// did, it may hold the other call's words too; callers that care run the work again `alone`
/// (see `VipsOperationCall` and `VipsImage.encode`), which gives exactly the text the call gives
/// when it runs by itself. Failures and warnings are rare, so the second run costs little.
///
/// Some of libvips' format tests also *freeze* the buffer while they run, dropping every
/// message logged meanwhile. Calls that run those tests are `exclusive`: they wait until no other
/// call is in flight and hold new ones back.
enum VipsErrorLog {
    /// What one call left in the log.
    struct Record {
        /// The error text, when the call failed.
        var message: String?
        /// Warnings logged during the call (decoders report damage they work around this way).
        var warnings: [String]
        /// No other call ran at the same time: `message` and `warnings` are the call's own.
        var clean: Bool
    }

    private final class Gate: @unchecked Sendable {
        // Safe: every var is read and written with `condition` locked.
        let condition = NSCondition()
        var inFlight = 0
        var exclusiveActive = false
        var exclusiveWaiting = 0
        /// The thread running an exclusive section; its own calls pass the gate.
        var owner: pthread_t?
        /// Calls started so far: a call that sees the count move was not alone.
        var started = 0
        var warnings: [String] = []
        /// Warnings dropped from the front of `warnings` (indices stay valid for calls in flight).
        var warningBase = 0
    }

    private static let gate = Gate()

    private struct Entry {
        let before: String
        let started: Int
        let warning: Int
        let alone: Bool
        let nested: Bool
    }

    /// Runs a libvips call; `failed` tells from its result whether it failed.
    static func call<T>(exclusive: Bool = false, _ body: () -> T, failed: (T) -> Bool) -> (T, String?) {
        let (result, record) = record(exclusive: exclusive, body, failed: failed)
        return (result, record.message)
    }

    /// Runs a libvips call and returns what it left in the log.
    static func record<T>(exclusive: Bool = false, _ body: () -> T, failed: (T) -> Bool) -> (T, Record) {
        let entry = enter(exclusive: exclusive)
        let result = body()
        return (result, leave(entry, exclusive: exclusive, failed: failed(result)))
    }

    /// Runs `body` with no other libvips call in flight: calls `body` makes are clean. Calls
    /// from other threads wait meanwhile.
    static func alone<T>(_ body: () throws(VipsError) -> T) throws(VipsError) -> T {
        gate.condition.lock()
        let nested = gate.owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        if !nested {
            gate.exclusiveWaiting += 1
            while gate.inFlight > 0 || gate.exclusiveActive { gate.condition.wait() }
            gate.exclusiveWaiting -= 1
            gate.exclusiveActive = true
            gate.owner = pthread_self()
        }
        gate.condition.unlock()
        defer {
            if !nested {
                gate.condition.lock()
                gate.exclusiveActive = false
                gate.owner = nil
                gate.condition.broadcast()
                gate.condition.unlock()
            }
        }
        return try body()
    }

    /// A warning from libvips' log handler (any thread).
    static func warn(_ text: String) {
        gate.condition.lock()
        defer { gate.condition.unlock() }
        // Outside any call nobody will read it; the logger still gets it.
        guard gate.inFlight > 0 else { return }
        gate.warnings.append(text)
    }

    private static func ownsSection() -> Bool {
        gate.owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    private static func enter(exclusive: Bool) -> Entry {
        gate.condition.lock()
        defer { gate.condition.unlock() }
        let nested = ownsSection()
        if nested {
            // Inside this thread's own exclusive section: nothing else runs.
        } else if exclusive {
            gate.exclusiveWaiting += 1
            while gate.inFlight > 0 || gate.exclusiveActive { gate.condition.wait() }
            gate.exclusiveWaiting -= 1
            gate.exclusiveActive = true
        } else {
            // Waiting exclusive calls go first, so a steady stream of calls cannot starve them.
            while gate.exclusiveActive || gate.exclusiveWaiting > 0 { gate.condition.wait() }
        }
        let alone = gate.inFlight == 0
        gate.inFlight += 1
        gate.started += 1
        return Entry(before: String(cString: vips_error_buffer()), started: gate.started,
                     warning: gate.warningBase + gate.warnings.count, alone: alone, nested: nested)
    }

    private static func leave(_ entry: Entry, exclusive: Bool, failed: Bool) -> Record {
        gate.condition.lock()
        defer { gate.condition.unlock() }
        gate.inFlight -= 1
        if exclusive && !entry.nested { gate.exclusiveActive = false }
        gate.condition.broadcast()
        let clean = entry.alone && gate.started == entry.started
        let first = max(0, entry.warning - gate.warningBase)
        let warnings = first < gate.warnings.count ? Array(gate.warnings[first...]).filter(isDamageWarning) : []
        // libvips drops messages once its buffer is full (10 KiB), so a busy run clears it early.
        defer {
            if gate.inFlight == 0 || strlen(vips_error_buffer()) > 6000 { vips_error_clear() }
            if gate.inFlight == 0 {
                gate.warningBase += gate.warnings.count
                gate.warnings.removeAll(keepingCapacity: true)
            }
        }
        let text = String(cString: vips_error_buffer())
        // libvips itself clears the buffer in places; then all of it is new.
        let own = text.hasPrefix(entry.before) ? String(text.dropFirst(entry.before.count)) : text
        guard failed else {
            // A call that succeeds but logged errors (libjpeg's "Corrupt JPEG data" goes to the
            // error buffer, the warning itself only when the image closes) was warned.
            var seen = Set<String>()
            let all = (warnings + lines(own)).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            return Record(message: nil, warnings: all.filter { isDamageWarning($0) && seen.insert($0).inserted }, clean: clean)
        }
        return Record(message: tidy(own.isEmpty ? text : own), warnings: warnings, clean: clean)
    }

    /// Whether a warning tells of damage to the pixels. libvips follows a decoder's warnings with
    /// a count ("read gave 2 warnings"), which says nothing more; notes about metadata ("unknown
    /// EXIF resolution unit", common in camera files) concern nothing `encode` publishes by
    /// default and would make every such photo look damaged.
    private static func isDamageWarning(_ text: String) -> Bool {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = text.lowercased()
        return !text.isEmpty && !(text.hasPrefix("read gave ") && text.hasSuffix("warnings")) && !text.hasPrefix("sanity failure")
            && !lower.contains("exif") && !lower.contains("resolution") && !lower.contains("xmp") && !lower.contains("iptc")
    }

    private static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func tidy(_ text: String) -> String {
        let lines = lines(text)
        return lines.isEmpty ? "libvips gave no message" : lines.joined(separator: "; ")
    }
}
