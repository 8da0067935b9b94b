import Foundation
import WorkbenchCore

/// One line per finished item and a summary, then the failures again grouped by cause: plain
/// text, fit for logs, pipes and terminals that cannot redraw.
public final class LineReporter: Reporter {
    private let quiet: Bool
    private let verbose: Bool
    private let outputRoot: String
    private let out: TextOutput
    private let err: TextOutput
    private var total: Int?
    private var failures = FailureGroups()
    private var notes = RunNotes()

    /// `quiet`: failures, warnings and the summary only; `verbose`: every node's state changes
    /// and progress too (on `err`).
    public init(quiet: Bool, verbose: Bool, outputRoot: String, out: TextOutput, err: TextOutput) {
        self.quiet = quiet
        self.verbose = verbose
        self.outputRoot = outputRoot
        self.out = out
        self.err = err
    }

    public var detail: RunOptions.EventDetail { verbose ? .nodes : .items }

    public func handle(_ event: RunEvent) {
        switch event {
        case .runStarted(let items, _):
            total = items
        case .node(let e):
            guard verbose else { return }
            let detail = e.message.map { ": \($0)" } ?? ""
            err.write(String(format: "%8.3f s  ", e.time) + "\(e.item.name) \(e.node) [\(e.queue)] \(e.state.rawValue)\(detail)")
        case .progress(let p) where p.unit == .pixels:
            // Pixels come once per percent: a line at each quarter.
            guard verbose, let all = p.expectedBytes, all > 0 else { return }
            let percent = p.bytes * 100 / all
            guard percent % 25 == 0 else { return }
            err.write("          \(p.item.name) \(p.node): \(percent)% of \(String(format: "%.1f", Double(all) / 1e6)) MPix")
        case .progress(let p):
            guard verbose else { return }
            let total = p.expectedBytes.map { " of \(Formatting.size($0))" } ?? ""
            err.write("          \(p.item.name) \(p.node): \(Formatting.size(p.bytes))\(total)")
        case .itemFinished(let report):
            failures.add(report)
            notes.add(report)
            Self.line(for: report, quiet: quiet, verbose: verbose).map(out.write)
            // What its nodes measured (an encode's quality search): under its line.
            if verbose { for m in report.measurements { out.write("          \(m.node): \(m.words)") } }
        case .runFinished(let summary):
            for report in summary.runNodes { Self.line(for: report, quiet: quiet).map(out.write) }
            // Named again at the end, where they cannot scroll away; one failure needs no repeat.
            if failures.groups.reduce(0, { $0 + $1.items.count }) > 1 { failures.lines.forEach(out.write) }
            summary.manifestProblem.map(err.write)
            // Said once for all the items it concerns, not on each item's line.
            notes.lines.forEach(out.write)
            out.write(Self.summaryLine(summary, total: total, root: outputRoot))
        }
    }

    /// Copies left out as repeats of smaller ones: counted, or named with why when `verbose`.
    private static func notMade(_ report: ItemReport, verbose: Bool) -> String {
        guard let first = report.notMade.first else { return "" }
        guard verbose else { return "; \(report.notMade.count) not made, each the same as a smaller copy" }
        let reasons = Set(report.notMade.compactMap(\.notMade))
        let why = reasons.count == 1 ? first.notMade ?? "" : "each the same as a smaller copy"
        return "; not made: " + report.notMade.map(\.path).joined(separator: ", ") + ", " + why
    }

    /// An item's line; items with nothing redone have one only when `verbose`.
    static func line(for report: ItemReport, quiet: Bool, verbose: Bool = false) -> String? {
        let name = report.item.name
        switch report.status {
        case .succeeded:
            guard !quiet || !report.warnings.isEmpty else { return nil }
            let outputs = report.outputs.isEmpty ? "no output" : report.outputs.joined(separator: ", ")
            let warned = report.warnings.isEmpty ? "" : " (with warnings: \(report.warnings.joined(separator: "; ")))"
            let kept = report.upToDate.isEmpty ? "" : "; \(report.upToDate.count) up to date"
            return "ok      \(name) → \(outputs) (\(Formatting.size(report.bytesWritten)), \(Formatting.seconds(report.duration))\(kept)\(notMade(report, verbose: verbose)))\(warned)"
        case .upToDate:
            guard verbose else { return nil }
            return "same    \(name) → " + report.upToDate.map(\.path).joined(separator: ", ") + " (up to date\(notMade(report, verbose: true)))"
        case .failed:
            let failure = report.failure.map { "\($0.node): \($0.message)" } ?? "failed"
            return "FAILED  \(name): \(failure)"
        case .cancelled:
            guard !quiet else { return nil }
            return "stopped \(name)"
        }
    }

    /// A run-scope node's line: its file, or why it did not write one.
    static func line(for report: RunNodeReport, quiet: Bool) -> String? {
        if let output = report.output {
            guard !quiet else { return nil }
            return "ok      \(report.node) → \(output) (\(Formatting.size(report.bytesWritten)), run scope)"
        }
        if report.state == .skipped {
            return "SKIPPED \(report.node) (run scope): " + (report.failure.map { "\"\($0.node)\" failed" } ?? "an upstream node did not succeed")
        }
        return "FAILED  \(report.node) (run scope): " + (report.failure?.message ?? "failed")
    }

    public static func summaryLine(_ s: RunSummary, total: Int?, root: String) -> String {
        var parts = s.succeeded > 0 || s.upToDate == 0 ? ["\(s.succeeded) succeeded"] : []
        if s.upToDate > 0 { parts.append("\(s.upToDate) up to date") }
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
            : s.ending == .stoppedByFailure ? "Stopped, the output could not be written: "
            : s.ending == .outOfResources ? "Stopped: \(s.stopReason ?? "the system refused what the run needed")\n" : ""
        let wrote = s.bytesWritten == 0 && s.upToDate > 0 ? "nothing written to \(root)" : "\(Formatting.size(s.bytesWritten)) written to \(root)"
        // Counts every input, started or not, so the parts add up to the number shown.
        let count = max(total ?? 0, s.items)
        return "\(head)\(count) item\(count == 1 ? "" : "s"): " + parts.joined(separator: ", ")
            + "; \(wrote) in \(Formatting.seconds(s.duration))"
    }
}
