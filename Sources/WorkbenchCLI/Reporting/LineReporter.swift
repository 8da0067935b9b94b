import Foundation
import WorkbenchCore

/// Prints one line per finished item and a summary: plain text, fit for terminals and logs.
struct LineReporter {
    private let quiet: Bool
    private let verbose: Bool
    private let outputRoot: String
    private var total: Int?

    init(quiet: Bool, verbose: Bool, outputRoot: String) {
        self.quiet = quiet
        self.verbose = verbose
        self.outputRoot = outputRoot
    }

    mutating func handle(_ event: RunEvent) {
        switch event {
        case .runStarted(let items, _):
            total = items
        case .node(let e):
            guard verbose else { return }
            let detail = e.message.map { ": \($0)" } ?? ""
            Terminal.error(String(format: "%8.3f s  ", e.time) + "\(e.item.name) \(e.node) [\(e.queue)] \(e.state.rawValue)\(detail)")
        case .progress(let p) where p.unit == .pixels:
            // Pixels come once per percent: a line at each quarter.
            guard verbose, let all = p.expectedBytes, all > 0 else { return }
            let percent = p.bytes * 100 / all
            guard percent % 25 == 0 else { return }
            Terminal.error("          \(p.item.name) \(p.node): \(percent)% of \(String(format: "%.1f", Double(all) / 1e6)) MPix")
        case .progress(let p):
            guard verbose else { return }
            let total = p.expectedBytes.map { " of \(Self.size($0))" } ?? ""
            Terminal.error("          \(p.item.name) \(p.node): \(Self.size(p.bytes))\(total)")
        case .itemFinished(let report):
            line(for: report).map(Terminal.out)
        case .runFinished(let summary):
            for report in summary.runNodes { line(for: report).map(Terminal.out) }
            Terminal.out(Self.summaryLine(summary, total: total, root: outputRoot))
        }
    }

    private func line(for report: ItemReport) -> String? {
        let name = report.item.name
        switch report.status {
        case .succeeded:
            guard !quiet || !report.warnings.isEmpty else { return nil }
            let outputs = report.outputs.isEmpty ? "no output" : report.outputs.joined(separator: ", ")
            let warned = report.warnings.isEmpty ? "" : " (with warnings: \(report.warnings.joined(separator: "; ")))"
            return "ok      \(name) → \(outputs) (\(Self.size(report.bytesWritten)), \(Self.seconds(report.duration)))\(warned)"
        case .failed:
            let failure = report.failure.map { "\($0.node): \($0.message)" } ?? "failed"
            return "FAILED  \(name): \(failure)"
        case .cancelled:
            guard !quiet else { return nil }
            return "stopped \(name)"
        }
    }

    /// A run-scope node's line: its file, or why it did not write one.
    private func line(for report: RunNodeReport) -> String? {
        if let output = report.output {
            guard !quiet else { return nil }
            return "ok      \(report.node) → \(output) (\(Self.size(report.bytesWritten)), run scope)"
        }
        if report.state == .skipped {
            return "SKIPPED \(report.node) (run scope): " + (report.failure.map { "\"\($0.node)\" failed" } ?? "an upstream node did not succeed")
        }
        return "FAILED  \(report.node) (run scope): " + (report.failure?.message ?? "failed")
    }

    static func summaryLine(_ s: RunSummary, total: Int?, root: String) -> String {
        var parts = ["\(s.succeeded) succeeded"]
        if s.failed > 0 { parts.append("\(s.failed) failed") }
        if s.cancelled > 0 { parts.append("\(s.cancelled) stopped") }
        if let total, total > s.items { parts.append("\(total - s.items) not started") }
        let written = s.runNodes.filter { $0.output != nil }.count
        let failedRun = s.runNodes.filter { $0.state == .failed }.count, skippedRun = s.runNodes.filter { $0.state == .skipped }.count
        if written > 0 || failedRun > 0 || skippedRun > 0 {
            var run: [String] = []
            if written > 0 { run.append("\(written) written") }
            if failedRun > 0 { run.append("\(failedRun) failed") }
            if skippedRun > 0 { run.append("\(skippedRun) skipped") }
            parts[parts.count - 1] += "; run scope: " + run.joined(separator: ", ")
        }
        let head = s.ending == .interrupted ? "Interrupted: " : s.ending == .failedFast ? "Stopped at the first failure: "
            : s.ending == .stoppedByFailure ? "Stopped, the output could not be written: " : ""
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
