import Foundation
import WorkbenchCore

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
