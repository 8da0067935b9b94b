import ArgumentParser
import Foundation
import Glibc
import WorkbenchCore
import WorkbenchPlugins
import WorkbenchReports
import WorkbenchVips

/// How a run is shown and recorded: `--progress`, `--report`, `--events`, `--trace`.
struct RunReportingOptions: ParsableArguments {
    enum Progress: String, ExpressibleByArgument, CaseIterable {
        case auto, tty, plain, none
    }

    @Option(help: ArgumentHelp("""
        tty: a live display on standard error (count, rate, ETA, queues, items in flight); plain: a line per item; \
        none: failures and the summary only; auto: tty when standard error is a terminal (not TERM=dumb), else plain.
        """, valueName: "mode"))
    var progress: Progress = .auto

    @Option(help: ArgumentHelp("Write a JSON report of the run: every item with its outputs (path, bytes, width, height, format), timings per op, versions.", valueName: "file"))
    var report: String?

    @Option(help: ArgumentHelp("Write every event as one JSON line as it happens; - for standard output (item lines then go to standard error).", valueName: "file"))
    var events: String?

    @Option(help: ArgumentHelp("Write a Chrome trace of the run (open it in ui.perfetto.dev): a lane per worker, a span per node.", valueName: "file"))
    var trace: String?

    /// The mode `auto` stands for here.
    func resolvedProgress(verbose: Bool) -> Progress {
        guard progress == .auto else { return progress }
        let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
        // Verbose lines would tear a redrawn display.
        return isatty(2) == 1 && term != "dumb" && !term.isEmpty && !verbose ? .tty : .plain
    }

    /// Standard error's width; `COLUMNS` (else 80) when it is not a terminal, as with
    /// `--progress tty` into a pipe or a log.
    @Sendable static func terminalColumns() -> Int {
        let columns = TerminalWidth.columns(ofDescriptor: 2)
        if columns > 0 { return columns }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 80
    }

    /// The reporters these options ask for, and the display to tick (when there is one).
    func reporters(output: OutputOptions, preset: Preset, presetPath: String, root: OutputRoot,
                   catalogue: PluginCatalogue) throws -> (group: ReporterGroup, display: ProgressDisplay?) {
        var reporters: [any Reporter] = []
        var display: ProgressDisplay?
        let eventsOnStandardOutput = events == "-"
        let lines = TextOutput(eventsOnStandardOutput ? Terminal.error : Terminal.out)
        switch resolvedProgress(verbose: output.verbose) {
        case .tty:
            let shown = ProgressDisplay(screen: .init(write: { FileHandle.standardError.write(Data($0.utf8)) },
                                                      width: Self.terminalColumns),
                                        outputRoot: root.location)
            display = shown
            reporters.append(shown)
            // Standard output elsewhere (a file, a pipe) still gets its line per item.
            if isatty(1) == 0 && !eventsOnStandardOutput {
                reporters.append(LineReporter(quiet: output.quiet, verbose: false, outputRoot: root.location, out: lines, err: TextOutput(Terminal.error)))
            }
        case .plain, .auto:
            reporters.append(LineReporter(quiet: output.quiet, verbose: output.verbose, outputRoot: root.location, out: lines,
                                          err: TextOutput(Terminal.error)))
        case .none:
            reporters.append(LineReporter(quiet: true, verbose: false, outputRoot: root.location, out: lines, err: TextOutput(Terminal.error)))
        }
        reporters += try Self.records(report: report, events: events, trace: trace, preset: preset, presetPath: presetPath, root: root,
                                      catalogue: catalogue)
        return (ReporterGroup(reporters), display)
    }

    /// The files a run (or a watch) is recorded in: `--report`, `--events`, `--trace`.
    static func records(report: String?, events: String?, trace: String?, preset: Preset, presetPath: String, root: OutputRoot,
                        catalogue: PluginCatalogue) throws -> [any Reporter] {
        var reporters: [any Reporter] = []
        if let events { reporters.append(try EventLog(path: events)) }
        let ops = Dictionary(preset.nodes.map { ($0.id, $0.op.name) }, uniquingKeysWith: { first, _ in first })
        if let report {
            let versions = RunVersions.of(preset, catalogue: catalogue)
            // The preset was just loaded from this path; were it gone since, the report's preset hash
            // would be of nothing.
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: presetPath))) ?? Data()
            reporters.append(try RunReport(path: report, context: .init(
                presetPath: URL(fileURLWithPath: presetPath).standardizedFileURL.path, presetBytes: bytes, versions: versions, ops: ops,
                outputRoot: root.path, inspect: { VipsImage.summary(ofFile: $0) })))
        }
        if let trace { reporters.append(try TraceWriter(path: trace, ops: ops)) }
        return reporters
    }
}
