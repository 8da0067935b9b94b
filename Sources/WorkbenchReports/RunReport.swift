import Foundation
import WorkbenchCore

/// `--report FILE.json`: what a run did, written when it ends — each item with its outputs
/// (path, bytes, width, height, format), warnings and error; timings per op; the run's wall and
/// CPU time, peak memory, versions and the preset's hash. Keys are stable (see the README).
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

    private let path: String
    private let context: Context
    private var items: [ItemReport] = []
    private var summary: RunSummary?
    /// Body seconds per op, from the spans of node events.
    private var timings: [String: [Double]] = [:]

    public init(path: String, context: Context) {
        self.path = path
        self.context = context
    }

    public var detail: RunOptions.EventDetail { .nodes }

    public func handle(_ event: RunEvent) {
        switch event {
        case .node(let e):
            guard let span = e.span else { return }
            timings[context.ops[e.node] ?? e.node, default: []].append(span.end - span.start)
        case .itemFinished(let report): items.append(report)
        case .runFinished(let summary): self.summary = summary
        default: break
        }
    }

    public func finish() throws {
        let data = try JSONSerialization.data(withJSONObject: document(), options: [.prettyPrinted, .sortedKeys])
        let url = URL(fileURLWithPath: path)
        // Whole or not at all: written beside, then renamed over.
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        do {
            try data.write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw WorkbenchError.writeFailed(path: path, reason: "the report: \(error.localizedDescription)")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw WorkbenchError.writeFailed(path: path, reason: "the report: \(reason)")
        }
    }

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
            "items": items.sorted { $0.item.index < $1.item.index }.map(item),
            "ops": timings.keys.sorted().map { op(op: $0, seconds: timings[$0] ?? []) },
        ]
    }

    private func item(_ report: ItemReport) -> [String: Any] {
        var object: [String: Any] = ["name": report.item.name, "index": report.item.index, "input": report.item.source,
                                     "status": report.status.rawValue, "seconds": report.duration, "warnings": report.warnings,
                                     "outputs": report.files.map { output($0, upToDate: false) } + report.upToDate.map { output($0, upToDate: true) }]
        if let failure = report.failure { object["error"] = ["node": failure.node, "op": context.ops[failure.node] ?? "", "message": failure.message] }
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

    private func op(op: String, seconds: [Double]) -> [String: Any] {
        let sorted = seconds.sorted()
        func quantile(_ q: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))] }
        let total = sorted.reduce(0, +)
        return ["op": op, "count": sorted.count, "totalSeconds": total, "meanSeconds": sorted.isEmpty ? 0 : total / Double(sorted.count),
                "p50Seconds": quantile(0.5), "p95Seconds": quantile(0.95), "maxSeconds": sorted.last ?? 0]
    }

    /// FNV-1a, 64 bits, as 16 hex digits.
    static func hash(_ data: Data) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for byte in data { h = (h ^ UInt64(byte)) &* 0x100000001b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
