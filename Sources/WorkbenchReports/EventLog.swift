import Foundation
import WorkbenchCore

/// `--events FILE.jsonl`: every event as one JSON object per line, as it happens (a run cut
/// short leaves every line up to then). Keys: `event` (`runStarted`, `node`, `progress`,
/// `itemFinished`, `runFinished`) and the event's fields, as documented in the README.
public final class EventLog: Reporter {
    private let handle: FileHandle
    private let closes: Bool

    /// Writes to `path`, or to standard output for `-`.
    public init(path: String) throws {
        if path == "-" {
            handle = .standardOutput
            closes = false
        } else {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw WorkbenchError.writeFailed(path: path, reason: "cannot create the events file")
            }
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            closes = true
        }
    }

    public var detail: RunOptions.EventDetail { .nodes }

    public func handle(_ event: RunEvent) {
        let object = Self.object(event)
        // As in RunReport.append: an event neither encoder can write is left out rather than ending the run.
        guard let data = JSONLine.encode(object) ?? (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) else { return }
        handle.write(data + Data("\n".utf8))
    }

    public func finish() throws {
        if closes { try handle.close() }
    }

    static func object(_ event: RunEvent) -> [String: Any] {
        switch event {
        case .runStarted(let items, let nodes):
            return ["event": "runStarted", "items": items as Any? ?? NSNull(), "nodesPerItem": nodes]
        case .node(let e):
            var object: [String: Any] = ["event": "node", "item": e.item.name, "itemIndex": e.item.index, "node": e.node,
                                         "queue": e.queue, "state": e.state.rawValue, "time": e.time, "attempt": e.attempt]
            if let message = e.message { object["message"] = message }
            if let span = e.span { object["lane"] = span.lane.name; object["start"] = span.start; object["end"] = span.end }
            return object
        case .progress(let p):
            var object: [String: Any] = ["event": "progress", "item": p.item.name, "node": p.node, "done": p.bytes,
                                         "unit": p.unit == .bytes ? "bytes" : "pixels"]
            if let all = p.expectedBytes { object["total"] = all }
            return object
        case .itemFinished(let report):
            var object: [String: Any] = ["event": "itemFinished", "item": report.item.name, "itemIndex": report.item.index,
                                         "input": report.item.source, "status": report.status.rawValue, "outputs": report.outputs,
                                         "bytes": report.bytesWritten, "seconds": report.duration, "warnings": report.warnings]
            if let failure = report.failure { object["error"] = ["node": failure.node, "message": failure.message] }
            if !report.upToDate.isEmpty { object["upToDate"] = report.upToDate.map(\.path) }
            if !report.measurements.isEmpty { object["measurements"] = report.measurements.map(RunReport.measurement) }
            if !report.notMade.isEmpty { object["notMade"] = report.notMade.map { ["path": $0.path, "reason": $0.notMade ?? ""] } }
            return object
        case .runFinished(let s):
            var object: [String: Any] = ["event": "runFinished", "items": s.items, "succeeded": s.succeeded, "failed": s.failed,
                                         "cancelled": s.cancelled, "upToDate": s.upToDate, "bytes": s.bytesWritten, "seconds": s.duration,
                                         "ending": s.ending.rawValue, "exitStatus": Int(s.exitCode)]
            if let problem = s.manifestProblem { object["manifestProblem"] = problem }
            return object
        }
    }
}
