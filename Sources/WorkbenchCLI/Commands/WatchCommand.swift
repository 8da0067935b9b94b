import ArgumentParser
import Foundation
import WorkbenchCore
import WorkbenchNet
import WorkbenchPlugins
import WorkbenchReports
import WorkbenchServe
import Synchronization
import WorkbenchVips

/// `workbench watch`: the preset's run, fed each input as it arrives in a folder, until stopped.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Process each new or changed input as it lands in a folder, until stopped.",
        discussion: """
            Files are taken once whole: closed after writing, or renamed into the folder (how rsync, scp and \
            most uploaders finish). What arrived while the watch was down is found at start; the outputs and the \
            manifest are run's own, so a watch and a later run agree on what is up to date. SIGTERM stops taking \
            files, finishes those in progress and exits 0; Ctrl-C stops as run does (exit 130).

            Examples:
              workbench watch look.json ~/uploads --out /srv/thumbnails
              workbench watch look.json --prune
                (the preset's own inputs glob; a deleted input's outputs are removed)
            """)

    @Argument(help: "The preset file.")
    var preset: String

    @Argument(help: "The folder to watch (its image files, as run takes a folder); default: the folder of the preset's inputs glob.")
    var source: String?

    @Option(name: .long, help: ArgumentHelp("The output folder; write paths are relative to it.", valueName: "dir"))
    var out: String?

    @Option(name: .long, help: ArgumentHelp("Threads for CPU stages (default: one per core).", valueName: "n"))
    var jobs: Int?

    @Flag(name: .long, help: "When an input is deleted (or moved away), remove the files it made and its manifest record.")
    var prune = false

    @Option(name: .long, help: ArgumentHelp("List the folder again every this many seconds, beside the events (0: only at start).", valueName: "seconds"))
    var reconcile = 3600

    @Option(name: .long, help: ArgumentHelp("Answer GET /healthz and GET /metrics (Prometheus) on this address, e.g. 127.0.0.1:9100 (port 0: any free one, printed).", valueName: "host:port"))
    var listen: String?

    @Flag(name: .long, help: "Allow libvips loaders and savers it marks untrusted (ImageMagick, PDF, SVG, FITS, …); only for files you trust.")
    var allowUntrusted = false

    @OptionGroup var output: OutputOptions

    @OptionGroup var overriding: OverrideOptions

    @OptionGroup var plugins: PluginOptions

    func validate() throws {
        if let jobs, jobs < 1 || jobs > 256 { throw ValidationError("--jobs takes a number from 1 to 256.") }
        if reconcile < 0 { throw ValidationError("--reconcile takes a number of seconds, 0 or more.") }
        if let listen, WatchListener.address(listen) == nil {
            throw ValidationError("--listen takes HOST:PORT, e.g. 127.0.0.1:9100 or :9100 for every address; \"\(listen)\" is not one.")
        }
    }

    func run() async throws {
        let logger = Terminal.startLogging(output)
        VipsRuntime.sendLibraryPrintsToStandardError()
        VipsRuntime.warnings.withLock { $0 = logger }
        if allowUntrusted { VipsRuntime.untrustedOperationsAllowed = true }
        let catalogue = plugins.catalogue()
        defer { catalogue.shutdown() }
        let loaded: Preset, inputs: WatchedInputs, root: OutputRoot, manifest: RunManifest
        do {
            loaded = try PresetLoader(registry: BuiltinOps.registry(plugins: catalogue)).load(file: preset, overrides: overriding.overrides)
            for warning in loaded.warnings { Terminal.error(warning.description) }
            if let refusal = ProcessLimits.refusalToRun(workers: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
                                                        perWorker: RunFootprint.perWorker(loaded)) {
                Terminal.error(refusal)
                throw ExitCode(ExitStatus.badPreset)
            }
            let cwd = FileManager.default.currentDirectoryPath
            inputs = try WatchedInputs(preset: loaded, source: source, relativeTo: cwd)
            let destination = out ?? loaded.outputFolder ?? cwd
            guard !S3Location.isS3(destination) else { throw WorkbenchError.badInputs("watch writes into a folder; \(destination) is a bucket (not yet watched).") }
            if let loop = inputs.loop(into: destination) { throw WorkbenchError.badInputs(loop) }
            root = try OutputRoot(destination)
            try catalogue.prepare(ops: loaded.nodes.map { ($0.op.name, $0.parameters.word("isolation") == "none") })
            manifest = try RunManifest(preset: loaded, output: root, versions: RunVersions.of(loaded, catalogue: catalogue))
            for warning in manifest.warnings { Terminal.error(warning) }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(ExitStatus.badPreset)
        }
        let stale = root.removeStaleTemporaryFiles()
        if !stale.isEmpty {
            Terminal.error("Removed \(stale.count) unfinished file\(stale.count == 1 ? "" : "s") that an interrupted run left in \(root.path).")
        }
        VipsRuntime.shareCores(workers: jobs ?? ProcessInfo.processInfo.activeProcessorCount, items: Int.max)

        let feed = WatchFeed(inputs)
        let lines = LineReporter(quiet: output.quiet, verbose: output.verbose, outputRoot: root.location, out: TextOutput(Terminal.out),
                                 err: TextOutput(Terminal.error))
        let reporter = ReporterGroup([lines])
        let pruning = prune, quiet = output.quiet
        let watch: FolderWatch
        do {
            // Watching starts before the listing, so nothing landing meanwhile is missed (what
            // both see is taken once: the manifest finds it up to date).
            watch = try FolderWatch(root: inputs.root, subfolders: inputs.subfolders) { event in
                switch event {
                case .arrived(let path):
                    feed.arrived(path)
                case .folderAppeared(let folder):
                    for found in inputs.listing() where found.path.hasPrefix(folder + "/") { feed.arrived(found.path) }
                case .removed(let path):
                    guard pruning else { return }
                    guard let removed = feed.prune(path, manifest: manifest, root: root), !removed.isEmpty else { return }
                    if !quiet { Terminal.out("pruned  \((path as NSString).lastPathComponent): removed \(removed.joined(separator: ", "))") }
                case .mustList(let reason):
                    Terminal.error("Listing \(inputs.root) again: \(reason).")
                    feed.feedListing()
                case .sourceLost(let reason):
                    Terminal.error("Not watching any more: \(reason). Make it again and restart the watch.")
                    feed.metrics.lost(reason)
                }
            }
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(ExitStatus.badPreset)
        }
        Terminal.error("Watching \(inputs.root)\(inputs.subfolders ? " and the folders below it" : "") for \(loaded.name ?? (preset as NSString).lastPathComponent); outputs in \(root.path). SIGTERM or Ctrl-C stops.")

        let token = CancellationToken()
        let stopping = StopRequest()
        let signals = WatchSignals(token: token, stop: {
            let running = feed.running
            Terminal.error("Stopping: no new files are taken" + (running == 0 ? "." : "; \(running) in progress finish\(running == 1 ? "es" : "") first."))
            stopping.request()
            watch.stop()
            feed.close()
        })
        let timer = reconcile > 0 ? DispatchSource.makeTimerSource(queue: .global(qos: .utility)) : nil
        if let timer {
            timer.schedule(deadline: .now() + .seconds(reconcile), repeating: .seconds(reconcile))
            timer.setEventHandler { feed.feedListing() }
            timer.resume()
        }
        let listener = listen.flatMap(WatchListener.address).map { address in
            let stopListening = CancellationToken()
            let server = WatchListener(metrics: feed.metrics, host: address.host, port: address.port)
            let task = Task {
                do {
                    try await server.run(logger: logger, announce: { Terminal.error("Health and metrics on \($0)/healthz and \($0)/metrics.") },
                                         stop: stopListening)
                } catch {
                    Terminal.error("Cannot listen on \(address.host):\(address.port): \(error)")
                }
            }
            return (stopListening, task)
        }
        let options = RunOptions(workers: jobs, eventDetail: reporter.detail, cancellation: token)
        let run = PresetRun.start(loaded, items: .feed(feed.feed), output: root, options: options, manifest: manifest, logger: logger)
        feed.feedListing()
        for await event in run.events {
            reporter.handle(event)
            if case .itemFinished(let report) = event { feed.ended(report.item, failed: report.failure != nil) }
        }
        timer?.cancel()
        if let (stopListening, task) = listener {
            stopListening.cancel()
            await task.value
        }
        let summary = await run.result
        do {
            try reporter.finish()
        } catch {
            Terminal.error("\(error)")
        }
        withExtendedLifetime(signals) {}
        if token.isCancelled { throw ExitCode(ExitStatus.interrupted) }
        if stopping.requested { return }
        if summary.exitCode != ExitStatus.ok { throw ExitCode(summary.exitCode) }
    }
}

/// Whether SIGTERM asked the watch to stop (it then ends with status 0).
private final class StopRequest: Sendable {
    private let flag = Mutex(false)
    func request() { flag.withLock { $0 = true } }
    var requested: Bool { flag.withLock { $0 } }
}
