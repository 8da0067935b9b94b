import Foundation
import WorkbenchCore

/// `--trace FILE.json`: the run as a Chrome trace-event file, for Perfetto (ui.perfetto.dev) or
/// chrome://tracing. One lane per CPU worker, I/O thread and concurrent network transfer; a span
/// per node body (args: item, node, op, queue, state, bytes); counters for the nodes waiting in
/// each queue's ready list and for the process's resident memory.
///
/// Events are written as they happen (the format allows any order) into a temporary file renamed
/// into place when the run ends: a trace of a million items is never held in memory.
public final class TraceWriter: Reporter {
    private let ops: [String: String]
    private let file: AtomicFileWriter
    private var waiting: [String: Int] = [:]
    /// Bytes moved by a node of an item (downloads), from progress events, until its span.
    private var bytes: [String: Int] = [:]
    /// Lanes named so far (by trace thread id).
    private var named: Set<Int> = []
    /// Per network lane: when its last span ended. A transfer takes the first lane free when it
    /// started; spans arrive as they end, so a lane's spans never overlap.
    private var networkEnds: [Double] = []
    private var written = 0

    /// `ops`: node id → op name, shown as each span's name. Opens the trace's temporary file.
    public init(path: String, ops: [String: String]) throws(WorkbenchError) {
        self.ops = ops
        do {
            file = try AtomicFileWriter(destination: path)
        } catch {
            throw .writeFailed(path: path, reason: "the trace: \(error.writeReason)")
        }
        file.write("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[")
        append(["name": "process_name", "ph": "M", "pid": 1, "args": ["name": "workbench run"]])
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
            if let moved = bytes.removeValue(forKey: "\(e.item.index)/\(e.node)") { args["bytes"] = moved }
            if let message = e.message { args["message"] = message }
            let tid = lane(span)
            append(["name": ops[e.node] ?? e.node, "cat": e.queue, "ph": "X", "pid": 1, "tid": tid,
                    "ts": span.start * 1e6, "dur": max(0, span.end - span.start) * 1e6, "args": args])
            lastEnd = span.end
        case .progress(let p) where p.unit == .bytes:
            bytes["\(p.item.index)/\(p.node)"] = p.bytes
        case .itemFinished:
            if let resident = Self.residentBytes(), let lastEnd {
                append(["name": "memory", "ph": "C", "pid": 1, "ts": lastEnd * 1e6, "args": ["RSS MiB": Double(resident) / 1_048_576]])
            }
        default: break
        }
    }

    /// When the last span written ended: where a memory sample is placed.
    private var lastEnd: Double?

    /// The trace thread id of a span's lane, named (and sorted) when first used.
    private func lane(_ span: NodeSpan) -> Int {
        let tid: Int, name: String
        switch span.lane {
        case .cpu(let n): (tid, name) = (1 + n, span.lane.name)
        case .io(let n): (tid, name) = (1000 + n, span.lane.name)
        case .async:
            let free = networkEnds.firstIndex { $0 <= span.start } ?? networkEnds.count
            if free == networkEnds.count { networkEnds.append(span.end) } else { networkEnds[free] = span.end }
            (tid, name) = (2000 + free, "network \(free)")
        }
        if named.insert(tid).inserted {
            append(["name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": ["name": name]])
            append(["name": "thread_sort_index", "ph": "M", "pid": 1, "tid": tid, "args": ["sort_index": tid]])
        }
        return tid
    }

    private func count(_ time: Double) {
        append(["name": "ready nodes", "ph": "C", "pid": 1, "ts": time * 1e6, "args": waiting])
    }

    private func append(_ event: [String: Any]) {
        // As in RunReport.append: an event neither encoder can write is left out rather than ending the run.
        guard let data = JSONLine.encode(event) ?? (try? JSONSerialization.data(withJSONObject: event, options: [])) else { return }
        file.write(written == 0 ? "\n" : ",\n")
        file.write(data)
        written += 1
    }

    public func finish() throws {
        file.write("\n]}\n")
        do {
            try file.commit()
        } catch {
            throw WorkbenchError.writeFailed(path: file.destination, reason: "the trace: \(error.writeReason)")
        }
    }

    /// The process's resident memory now, from /proc/self/statm.
    static func residentBytes() -> Int? {
        // Outside Linux's /proc there is no memory counter to draw: the trace goes without it.
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
