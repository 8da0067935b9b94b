import Foundation
import WorkbenchCore

/// Something that follows a run through its events: a line per item, a live display, a report
/// file, a trace. The CLI composes several (`ReporterGroup`) and feeds them every event in order.
public protocol Reporter: AnyObject {
    /// The events it needs: `.items` (items and the run) or `.nodes` (every node's state and
    /// progress too, which costs the scheduler a little).
    var detail: RunOptions.EventDetail { get }
    func handle(_ event: RunEvent)
    /// After the last event: write what was gathered (a report, a trace). Throws when it cannot.
    func finish() throws
}

extension Reporter {
    public func finish() throws {}
}

/// Several reporters as one: each event goes to each, in order.
public final class ReporterGroup: Reporter {
    public let reporters: [any Reporter]

    public init(_ reporters: [any Reporter]) { self.reporters = reporters }

    /// The most any member needs.
    public var detail: RunOptions.EventDetail {
        reporters.contains { $0.detail == .nodes } ? .nodes : reporters.contains { $0.detail == .items } ? .items : .none
    }

    public func handle(_ event: RunEvent) {
        for reporter in reporters { reporter.handle(event) }
    }

    /// Finishes every member; the first error is thrown after all have had their turn.
    public func finish() throws {
        var first: (any Error)?
        for reporter in reporters {
            do { try reporter.finish() } catch { first = first ?? error }
        }
        if let first { throw first }
    }
}

/// Where a reporter's text goes, a line at a time (the CLI gives standard output or error).
public struct TextOutput: Sendable {
    public let write: @Sendable (String) -> Void

    public init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }
}

/// Sizes and durations as the reporters print them.
public enum Formatting {
    public static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return String(format: "%.1f KiB", Double(bytes) / 1024) }
        return String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    public static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }

    /// `1:05` or `1:02:05`, for an ETA.
    public static func clock(_ seconds: Double) -> String {
        // An ETA from a rate near zero can be anything: past a year it says nothing anyway.
        let total = seconds.isFinite ? Int(min(max(seconds, 0), 365 * 86_400).rounded()) : 0
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}
