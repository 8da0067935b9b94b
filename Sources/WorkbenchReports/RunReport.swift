import Foundation
import WorkbenchCore

/// `--report FILE.json`: what a run did — each item with its outputs (path, bytes, width,
/// height, format), warnings and error; timings per op; the run's wall and CPU time, peak memory,
/// versions and the preset's hash. Keys are stable (see the README).
///
/// Items are written as they finish (in input order, held back a little to restore it), into a
/// temporary file renamed into place when the run ends: the report of a million items is never
/// in memory, and a run cut short leaves no half a report.
public final class RunReport: Reporter {
    /// What the report says about the run that the events do not carry.
    public struct Context: Sendable {
        public var presetPath: String
        /// The preset file's bytes, hashed into `preset.hash`.
        public var presetBytes: Data
        /// `workbench`, `libvips`, and each plugin the preset uses by name.
        public var versions: [String: String]
        /// Node id → op name, for timings per op.
        public var ops: [String: String]
        public var outputRoot: String
        /// Width, height and format of a written file (absolute path), if it is an image.
        public var inspect: @Sendable (String) -> (width: Int, height: Int, format: String)?

        public init(presetPath: String, presetBytes: Data, versions: [String: String], ops: [String: String], outputRoot: String,
                    inspect: @escaping @Sendable (String) -> (width: Int, height: Int, format: String)?) {
            self.presetPath = presetPath
            self.presetBytes = presetBytes
            self.versions = versions
            self.ops = ops
            self.outputRoot = outputRoot
            self.inspect = inspect
        }
    }

    /// Items finished ahead of an earlier one wait this many at most; past that the earliest
    /// goes out, so a run whose item numbers have gaps (a shard) still streams.
    static let reorderWindow = 1024

    private let context: Context
    private let file: AtomicFileWriter
    private var summary: RunSummary?
    /// Body seconds per op, from the spans of node events.
    private var timings: [String: DurationSummary] = [:]
    /// Finished items not written yet, by index, and the index written next.
    private var waiting: [Int: [String: Any]] = [:]
    private var nextIndex = 0
    private var written = 0

    /// Opens the report's temporary file (beside `path`); throws when it cannot be written there.
    public init(path: String, context: Context) throws(WorkbenchError) {
        self.context = context
        do {
            file = try AtomicFileWriter(destination: path)
        } catch {
            throw .writeFailed(path: path, reason: "the report: \(error.writeReason)")
        }
        file.write("{\n  \"items\" : [")
    }

    public var detail: RunOptions.EventDetail { .nodes }

    public func handle(_ event: RunEvent) {
        switch event {
        case .node(let e):
            guard let span = e.span else { return }
            timings[context.ops[e.node] ?? e.node, default: DurationSummary()].add(span.end - span.start)
        case .itemFinished(let report):
            waiting[report.item.index] = item(report)
            release(all: false)
        case .runFinished(let summary): self.summary = summary
        default: break
        }
    }

    /// Writes the items that are next in order (all of them at the end).
    private func release(all: Bool) {
        while let object = waiting.removeValue(forKey: nextIndex) {
            append(object)
            nextIndex += 1
        }
        guard all || waiting.count > Self.reorderWindow else { return }
        for index in waiting.keys.sorted() where all || waiting.count > Self.reorderWindow {
            if let object = waiting.removeValue(forKey: index) { append(object) }
            nextIndex = max(nextIndex, index + 1)
        }
    }

    private func append(_ object: [String: Any]) {
        // JSONLine encodes every value we put in; Foundation's writer is the fallback for a type it
        // lacks, and an event neither can write is left out rather than ending the run.
        guard let data = JSONLine.encode(object) ?? (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) else { return }
        file.write(written == 0 ? "\n    " : ",\n    ")
        file.write(data)
        written += 1
    }

    public func finish() throws {
        release(all: true)
        var rest = document()
        rest["items"] = nil
        let data = try JSONSerialization.data(withJSONObject: rest, options: [.prettyPrinted, .sortedKeys])
        // The rest of the document after the items: its own first brace dropped.
        file.write(written == 0 ? "],\n" : "\n  ],\n")
        file.write(data.dropFirst(2))
        file.write("\n")
        do {
            try file.commit()
        } catch {
            throw WorkbenchError.writeFailed(path: file.destination, reason: "the report: \(error.writeReason)")
        }
    }

    /// Everything but the items, which are written as they finish.
    func document() -> [String: Any] {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        var run: [String: Any] = ["cpuSeconds": cpu, "peakRSSBytes": usage.ru_maxrss * 1024, "outputRoot": context.outputRoot]
        if let s = summary {
            run.merge(["wallSeconds": s.duration, "ending": s.ending.rawValue, "exitStatus": Int(s.exitCode), "items": s.items,
                       "succeeded": s.succeeded, "failed": s.failed, "cancelled": s.cancelled, "upToDate": s.upToDate, "bytesWritten": s.bytesWritten,
                       "runScope": s.runNodes.map(runNode)]) { $1 }
        }
        return [
            "reportVersion": 1,
            "versions": context.versions,
            "preset": ["path": context.presetPath, "hash": "fnv1a64:" + Self.hash(context.presetBytes)],
            "run": run,
            "ops": timings.keys.sorted().map { op(op: $0, seconds: timings[$0] ?? DurationSummary()) },
        ]
    }

    private func item(_ report: ItemReport) -> [String: Any] {
        var object: [String: Any] = ["name": report.item.name, "index": report.item.index, "input": report.item.source,
                                     "status": report.status.rawValue, "seconds": report.duration, "warnings": report.warnings,
                                     "decodes": report.decodes, "notes": report.notes, "outputs": report.files.map { output($0, upToDate: false) } + report.upToDate.map { output($0, upToDate: true) }
                                         + report.notMade.map { ["path": $0.path, "notMade": $0.notMade ?? ""] }]
        if let failure = report.failure { object["error"] = ["node": failure.node, "op": context.ops[failure.node] ?? "", "message": failure.message] }
        if !report.measurements.isEmpty { object["measurements"] = report.measurements.map(Self.measurement) }
        return object
    }

    /// `{"node": …, "Q": 62, "ssimulacra2": 80.4, …}`: whole numbers as integers.
    static func measurement(_ m: NodeMeasurement) -> [String: Any] {
        var object: [String: Any] = ["node": m.node]
        for v in m.values { object[v.name] = v.value.rounded() == v.value && abs(v.value) < 1e15 ? Int(v.value) as Any : v.value as Any }
        return object
    }

    /// A file as the run described it (an encoder's size and format), else read from its header.
    private func output(_ file: OutputFile, upToDate: Bool) -> [String: Any] {
        guard let width = file.width, let height = file.height, let format = file.format else {
            var object = output(file.path)
            if upToDate { object["upToDate"] = true }
            return object
        }
        var object: [String: Any] = ["path": file.path, "bytes": file.bytes, "width": width, "height": height, "format": format]
        if upToDate { object["upToDate"] = true }
        return object
    }

    private func output(_ relative: String) -> [String: Any] {
        let absolute = (context.outputRoot as NSString).appendingPathComponent(relative)
        var object: [String: Any] = ["path": relative]
        // The size is extra detail: a file removed since it was written is listed without it.
        if let size = (try? FileManager.default.attributesOfItem(atPath: absolute))?[.size] as? Int { object["bytes"] = size }
        if let image = context.inspect(absolute) {
            object["width"] = image.width
            object["height"] = image.height
            object["format"] = image.format
        }
        return object
    }

    private func runNode(_ report: RunNodeReport) -> [String: Any] {
        var object: [String: Any] = ["node": report.node, "state": report.state.rawValue]
        if let output = report.output { object["output"] = self.output(output) }
        if let failure = report.failure { object["error"] = ["node": failure.node, "message": failure.message] }
        return object
    }

    private func op(op: String, seconds: DurationSummary) -> [String: Any] {
        ["op": op, "count": seconds.count, "totalSeconds": seconds.total, "meanSeconds": seconds.mean,
         "p50Seconds": seconds.quantile(0.5), "p95Seconds": seconds.quantile(0.95), "maxSeconds": seconds.maximum]
    }

    /// FNV-1a, 64 bits, as 16 hex digits.
    static func hash(_ data: Data) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for byte in data { h = (h ^ UInt64(byte)) &* 0x100000001b3 }
        return ContentHash.digits(h)
    }
}

extension WorkbenchError {
    /// Why a write failed, without the path (for "the report: …", "the trace: …").
    var writeReason: String {
        switch self {
        case .writeFailed(_, let reason), .outputStopped(_, let reason): return reason
        default: return description
        }
    }
}
