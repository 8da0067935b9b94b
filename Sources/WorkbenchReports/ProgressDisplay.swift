import Foundation
import Synchronization
import WorkbenchCore

/// A few lines at the bottom of a terminal, redrawn at most ten times a second while a run goes:
/// done / failed / total with a bar, items per second, what was written and how fast, ETA; each
/// queue's running and waiting nodes; the items in flight, what they are doing and, past a
/// second, for how long (an AVIF encode compresses for seconds after its pixels are all made). Failures print above it as
/// they happen; at the end it is replaced by the failures grouped by cause, the run-scope files
/// and the summary.
///
/// Lines are cut to the terminal's width (read at every redraw), so they never wrap; a redraw
/// first climbs over as many rows as the last drawing takes at the current width.
public final class ProgressDisplay: Reporter, Sendable {
    /// The terminal: raw text out, and its width now.
    public struct Screen: Sendable {
        public let write: @Sendable (String) -> Void
        public let width: @Sendable () -> Int

        public init(write: @escaping @Sendable (String) -> Void, width: @escaping @Sendable () -> Int) {
            self.write = write
            self.width = width
        }
    }

    private struct State {
        var total: Int?
        var succeeded = 0, failed = 0, cancelled = 0, upToDate = 0
        var bytes = 0
        var queues: [String: (running: Int, waiting: Int)] = [:]
        var queueOrder: [String] = []
        /// Item index → (name, node now running (nil between nodes), its progress, since when).
        var inFlight: [Int: (name: String, node: String?, progress: String?, since: Date)] = [:]
        var failures = FailureGroups()
        var notes = RunNotes()
        var drawn: [String] = []
        var lastDraw = 0.0
        var finished = false
        var cursorHidden = false
    }

    private let screen: Screen
    private let outputRoot: String
    private let started: Date
    /// The time now: the system's, or a test's clock.
    private let clock: @Sendable () -> Date
    private let state = Mutex(State())

    public convenience init(screen: Screen, outputRoot: String) {
        self.init(screen: screen, outputRoot: outputRoot, clock: { Date() })
    }

    init(screen: Screen, outputRoot: String, clock: @escaping @Sendable () -> Date) {
        self.screen = screen
        self.outputRoot = outputRoot
        self.clock = clock
        started = clock()
    }

    public var detail: RunOptions.EventDetail { .nodes }

    public func handle(_ event: RunEvent) {
        state.withLock { s in
            switch event {
            case .runStarted(let items, _):
                s.total = items
            case .node(let e):
                var queue = s.queues[e.queue] ?? (0, 0)
                if s.queues[e.queue] == nil { s.queueOrder.append(e.queue) }
                switch e.state {
                case .ready: queue.waiting += 1
                case .running:
                    queue.waiting -= 1
                    queue.running += 1
                    if e.item.index >= 0 { s.inFlight[e.item.index] = (e.item.name, e.node, nil, clock()) }
                case .succeeded, .failed, .cancelled, .pending:
                    guard e.span != nil else { break }
                    queue.running = max(0, queue.running - 1)
                    if e.item.index >= 0, s.inFlight[e.item.index]?.node == e.node { s.inFlight[e.item.index]?.node = nil }
                default: break
                }
                s.queues[e.queue] = queue
            case .progress(let p):
                guard p.item.index >= 0, var flight = s.inFlight[p.item.index], flight.node == p.node else { break }
                if let all = p.expectedBytes, all > 0 {
                    flight.progress = "\(p.bytes * 100 / all)%"
                } else if p.unit == .bytes {
                    flight.progress = Formatting.size(p.bytes)
                }
                s.inFlight[p.item.index] = flight
            case .itemFinished(let report):
                s.inFlight[report.item.index] = nil
                s.bytes += report.bytesWritten
                switch report.status {
                case .succeeded: s.succeeded += 1
                case .failed: s.failed += 1
                case .cancelled: s.cancelled += 1
                case .upToDate: s.upToDate += 1
                }
                s.failures.add(report)
                s.notes.add(report)
                if report.status == .failed || !report.warnings.isEmpty, let line = LineReporter.line(for: report, quiet: true) {
                    printAbove(line, &s)
                }
            case .runFinished(let summary):
                clear(&s)
                s.finished = true
                var lines = summary.runNodes.compactMap { LineReporter.line(for: $0, quiet: false) }
                lines += s.failures.lines
                lines += s.notes.lines
                if let problem = summary.manifestProblem { lines.append(problem) }
                lines.append(LineReporter.summaryLine(summary, total: s.total, root: outputRoot))
                screen.write(lines.joined(separator: "\n") + "\n\u{1B}[?25h")
                return
            }
            redraw(&s, force: false)
        }
    }

    /// Redraws if the last drawing is 0.1 s old (the CLI calls this on a timer, so the rate and
    /// ETA move while nothing finishes).
    public func tick() {
        state.withLock { redraw(&$0, force: false) }
    }

    /// Prints `line` above the display (a message from elsewhere, e.g. the interrupt's).
    public func notice(_ line: String) {
        state.withLock { s in
            if s.finished { screen.write(line + "\n") } else { printAbove(line, &s) }
        }
    }

    /// Shows the cursor again, at once (for a process about to exit).
    public func restoreCursor() { screen.write("\n\u{1B}[?25h") }

    /// Shows the cursor again, whatever happened.
    public func finish() throws {
        state.withLock { s in
            if !s.finished { clear(&s); screen.write("\u{1B}[?25h") }
        }
    }

    private func redraw(_ s: inout State, force: Bool) {
        guard !s.finished else { return }
        let now = clock()
        let time = now.timeIntervalSince(started)
        guard force || time - s.lastDraw >= 0.1 else { return }
        s.lastDraw = time
        let width = max(20, screen.width())
        let lines = Self.lines(s, elapsed: time, width: width, now: now).map { Self.cut($0, to: width - 1) }
        // No cursor blinking through the block (shown again at the end).
        let hide = s.cursorHidden ? "" : "\u{1B}[?25l"
        s.cursorHidden = true
        screen.write(hide + climb(s.drawn, width: width) + lines.joined(separator: "\n"))
        s.drawn = lines
    }

    private func clear(_ s: inout State) {
        screen.write(climb(s.drawn, width: max(20, screen.width())))
        s.drawn = []
    }

    private func printAbove(_ line: String, _ s: inout State) {
        clear(&s)
        screen.write(line + "\n")
        redraw(&s, force: true)
    }

    /// Back to the start of the block drawn before, and everything below erased.
    private func climb(_ drawn: [String], width: Int) -> String {
        guard !drawn.isEmpty else { return "\r\u{1B}[J" }
        // A line drawn wider than the terminal is now wraps into more rows.
        let rows = drawn.reduce(0) { $0 + max(1, ($1.count + width - 1) / width) }
        return "\r" + String(repeating: "\u{1B}[1A", count: rows - 1) + "\u{1B}[J"
    }

    private static func lines(_ s: State, elapsed: Double, width: Int, now: Date) -> [String] {
        let done = s.succeeded + s.failed + s.cancelled + s.upToDate
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var head = s.total.map { "\(done)/\($0)" } ?? "\(done)"
        if let total = s.total, total > 0 {
            let barWidth = max(10, min(30, width / 4))
            let filled = min(barWidth, done * barWidth / total)
            head = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "] " + head
        }
        var parts = [head + " done"]
        if s.failed > 0 { parts.append("\(s.failed) failed") }
        if s.upToDate > 0 { parts.append("\(s.upToDate) up to date") }
        parts.append(String(format: "%.1f items/s", rate))
        // Bytes arrive as items end: before the first, a rate would only say 0.0.
        if s.bytes > 0 {
            parts.append(Formatting.size(s.bytes) + " written, " + String(format: "%.1f MB/s", Double(s.bytes) / 1e6 / max(elapsed, 0.001)))
        }
        if let total = s.total, rate > 0, done < total { parts.append("ETA " + Formatting.clock(Double(total - done) / rate)) }
        parts.append(Formatting.clock(elapsed) + " elapsed")
        let queues = s.queueOrder.compactMap { name -> String? in
            guard let q = s.queues[name] else { return nil }
            return "\(name) \(q.running) running" + (q.waiting > 0 ? ", \(max(0, q.waiting)) waiting" : "")
        }
        let running = s.inFlight.sorted { $0.key < $1.key }.compactMap { _, f in
            f.node.map { node in
                let seconds = Int(now.timeIntervalSince(f.since))
                // All pixels made, the node still running: an encoder compressing them.
                let progress = f.progress == "100%" ? " 100%, compressing" : f.progress.map { " " + $0 } ?? ""
                return "\(f.name) (\(node)\(progress)\(seconds >= 1 ? " · \(Formatting.clock(Double(seconds)))" : ""))"
            }
        }
        let between = s.inFlight.values.count { $0.node == nil }
        return [parts.joined(separator: " · "),
                "queues: " + (queues.isEmpty ? "starting" : queues.joined(separator: " · ")),
                "now: " + (running.isEmpty ? "—" : running.joined(separator: ", ")) + (between > 0 ? " · \(between) more between steps" : "")]
    }

    /// At most `width` characters, with … when cut.
    static func cut(_ line: String, to width: Int) -> String {
        line.count <= width ? line : String(line.prefix(max(0, width - 1))) + "…"
    }
}
