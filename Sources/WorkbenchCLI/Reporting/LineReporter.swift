import Foundation
import Synchronization
import WorkbenchCore

/// Prints one line per finished item and a summary: plain text, fit for terminals and logs.
final class LineReporter: Sendable {
    private let quiet: Bool
    private let verbose: Bool
    private let outputRoot: String
    private let total = Mutex(0)

    init(quiet: Bool, verbose: Bool, outputRoot: String) {
        self.quiet = quiet
        self.verbose = verbose
        self.outputRoot = outputRoot
    }

    func handle(_ event: RunEvent) {
        switch event {
        case .runStarted(let items, _):
            total.withLock { $0 = items }
        case .node(let e):
            guard verbose else { return }
            let detail = e.message.map { ": \($0)" } ?? ""
            Terminal.error(String(format: "%8.3f s  ", e.time) + "\(e.item.name) \(e.node) [\(e.queue)] \(e.state.rawValue)\(detail)")
        case .itemFinished(let report):
            line(for: report).map(Terminal.out)
        case .runFinished(let summary):
            Terminal.out(Self.summaryLine(summary, root: outputRoot))
        }
    }

    private func line(for report: ItemReport) -> String? {
        let name = report.item.name
        switch report.status {
        case .succeeded:
            guard !quiet else { return nil }
            let outputs = report.outputs.isEmpty ? "no output" : report.outputs.joined(separator: ", ")
            return "ok      \(name) → \(outputs) (\(Self.size(report.bytesWritten)), \(Self.seconds(report.duration)))"
        case .failed:
            let failure = report.failure.map { "\($0.node): \($0.message)" } ?? "failed"
            return "FAILED  \(name): \(failure)"
        case .cancelled:
            guard !quiet else { return nil }
            return "stopped \(name)"
        }
    }

    static func summaryLine(_ s: RunSummary, root: String) -> String {
        var parts = ["\(s.succeeded) succeeded"]
        if s.failed > 0 { parts.append("\(s.failed) failed") }
        if s.cancelled > 0 { parts.append("\(s.cancelled) stopped") }
        let head = s.wasCancelled ? "Interrupted: " : ""
        return "\(head)\(s.items) item\(s.items == 1 ? "" : "s"): " + parts.joined(separator: ", ")
            + "; \(size(s.bytesWritten)) written to \(root) in \(seconds(s.duration))"
    }

    static func size(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1024 * 1024 { return String(format: "%.1f KiB", Double(bytes) / 1024) }
        return String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    static func seconds(_ value: Double) -> String {
        String(format: "%.2f s", value)
    }
}
