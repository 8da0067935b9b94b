import Foundation
import WorkbenchCore

/// `--trace FILE.json`: the run as a Chrome trace-event file, for Perfetto (ui.perfetto.dev) or
/// chrome://tracing. One lane per CPU worker, I/O thread and concurrent network transfer; a span
/// per node body (args: item, node, op, queue, state, bytes); counters for the nodes waiting in
/// each queue's ready list and for the process's resident memory.
public final class TraceWriter: Reporter {
    private struct Span {
        let lane: NodeSpan.Lane
        let start: Double, end: Double
        let name: String
        let args: [String: Any]
    }

    private let path: String
    private let ops: [String: String]
    private var spans: [Span] = []
    private var counters: [[String: Any]] = []
    private var waiting: [String: Int] = [:]
    /// Bytes moved by a node of an item (downloads), from progress events.
    private var bytes: [String: Int] = [:]

    /// `ops`: node id → op name, shown as each span's name.
    public init(path: String, ops: [String: String]) {
        self.path = path
        self.ops = ops
    }

    public var detail: RunOptions.EventDetail { .nodes }

    public func handle(_ event: RunEvent) {
        switch event {
        case .node(let e):
            switch e.state {
            case .ready: waiting[e.queue, default: 0] += 1; count(e.time)
            case .running: waiting[e.queue, default: 0] -= 1; count(e.time)
            default: break
            }
            guard let span = e.span else { return }
            var args: [String: Any] = ["item": e.item.name, "node": e.node, "queue": e.queue, "state": e.state.rawValue, "attempt": e.attempt]
            if let moved = bytes["\(e.item.index)/\(e.node)"] { args["bytes"] = moved }
            if let message = e.message { args["message"] = message }
            spans.append(Span(lane: span.lane, start: span.start, end: span.end, name: ops[e.node] ?? e.node, args: args))
        case .progress(let p) where p.unit == .bytes:
            bytes["\(p.item.index)/\(p.node)"] = p.bytes
        case .itemFinished:
            if let resident = Self.residentBytes(), let last = spans.last {
                counters.append(["name": "memory", "ph": "C", "pid": 1, "ts": last.end * 1e6, "args": ["RSS MiB": Double(resident) / 1_048_576]])
            }
        default: break
        }
    }

    private func count(_ time: Double) {
        counters.append(["name": "ready nodes", "ph": "C", "pid": 1, "ts": time * 1e6, "args": waiting])
    }

    public func finish() throws {
        var events: [[String: Any]] = [["name": "process_name", "ph": "M", "pid": 1, "args": ["name": "workbench run"]]]
        var tids: [NodeSpan.Lane: Int] = [:]
        var networkEnds: [Double] = []  // per network lane: when its last span ended
        var laneNames: [Int: String] = [:]
        for span in spans.sorted(by: { $0.start < $1.start }) {
            let tid: Int
            switch span.lane {
            case .cpu(let n): tid = 1 + n; laneNames[tid] = span.lane.name
            case .io(let n): tid = 1000 + n; laneNames[tid] = span.lane.name
            case .async:
                // Transfers overlap: each takes the first network lane free when it starts.
                let free = networkEnds.firstIndex { $0 <= span.start } ?? networkEnds.count
                if free == networkEnds.count { networkEnds.append(span.end) } else { networkEnds[free] = span.end }
                tid = 2000 + free
                laneNames[tid] = "network \(free)"
            }
            tids[span.lane] = tid
            events.append(["name": span.name, "cat": span.args["queue"] ?? "", "ph": "X", "pid": 1, "tid": tid,
                           "ts": span.start * 1e6, "dur": max(0, span.end - span.start) * 1e6, "args": span.args])
        }
        for (tid, name) in laneNames {
            events.append(["name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": ["name": name]])
            events.append(["name": "thread_sort_index", "ph": "M", "pid": 1, "tid": tid, "args": ["sort_index": tid]])
        }
        events += counters
        let data = try JSONSerialization.data(withJSONObject: ["traceEvents": events, "displayTimeUnit": "ms"], options: [])
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw WorkbenchError.writeFailed(path: path, reason: "the trace: \(error.localizedDescription)")
        }
    }

    /// The process's resident memory now, from /proc/self/statm.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
