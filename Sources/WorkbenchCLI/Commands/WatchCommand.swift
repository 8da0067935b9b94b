import ArgumentParser
import Foundation
import Logging
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
        abstract: "Process each new or changed input as it lands in a folder or a bucket, until stopped.",
        discussion: """
            Files are taken once whole: closed after writing, or renamed into the folder (how rsync, scp and \
            most uploaders finish). What arrived while the watch was down is found at start; the outputs and the \
            manifest are run's own, so a watch and a later run agree on what is up to date. SIGTERM stops taking \
            files, finishes those in progress and exits 0; Ctrl-C stops as run does (exit 130).

            Examples:
              workbench watch look.json ~/uploads --out /srv/thumbnails
              workbench watch look.json --prune
                (the preset's own inputs glob; a deleted input's outputs are removed)
              workbench watch look.json s3://photos/in/ --out s3://photos/thumbs/ --listen :8080
                (the bucket's notifications posted to port 8080; see docs/watch.md)
            """)

    @Argument(help: "The preset file.")
    var preset: String

    @Argument(help: "The folder (its image files, as run takes a folder) or s3://bucket/prefix/ to watch; default: the preset's inputs.")
    var source: String?

    @OptionGroup var work: WorkOptions

    @Flag(name: .long, help: "When an input is deleted (or moved away), remove the files it made and its manifest record.")
    var prune = false

    @Option(name: .long, help: ArgumentHelp("List the folder again every this many seconds, beside the events (0: only at start).", valueName: "seconds"))
    var reconcile = 3600

    @Option(name: .long, help: ArgumentHelp("Answer GET /healthz and GET /metrics (Prometheus), and a bucket's event notifications (POST), on this address, e.g. 127.0.0.1:9100 (port 0: any free one, printed).", valueName: "host:port"))
    var listen: String?

    @Option(help: ArgumentHelp("Write a JSON report of every item the watch made (as run's --report), when it stops.", valueName: "file"))
    var report: String?

    @Option(help: ArgumentHelp("Write every event as one JSON line as it happens (as run's --events).", valueName: "file"))
    var events: String?

    @Flag(name: .long, help: "Allow libvips loaders and savers it marks untrusted (ImageMagick, PDF, SVG, FITS, …); only for files you trust.")
    var allowUntrusted = false

    @OptionGroup var output: OutputOptions

    @OptionGroup var overriding: OverrideOptions

    @OptionGroup var plugins: PluginOptions

    func validate() throws {
        if reconcile < 0 { throw ValidationError("--reconcile takes a number of seconds, 0 or more.") }
        if let listen, WatchListener.address(listen) == nil {
            throw ValidationError("--listen takes HOST:PORT, e.g. 127.0.0.1:9100 or :9100 for every address; \"\(listen)\" is not one.")
        }
    }

    func run() async throws {
        let logger = RunSetup.startLibraries(output, allowUntrusted: allowUntrusted)
        let catalogue = plugins.catalogue()
        defer { catalogue.shutdown() }
        let (prepared, inputs) = try Terminal.saying { try prepare(catalogue) }
        RunSetup.sayWhatWasCleared(prepared.root)
        VipsRuntime.shareCores(workers: work.workers, items: Int.max)
        let feed = WatchFeed(inputs)
        let arrivals = WatchArrivals(feed: feed, inputs: inputs, manifest: prepared.manifest, root: prepared.root,
                                     remote: inputs.isBucket ? S3Listing(client: prepared.s3) : nil, prune: prune, quiet: output.quiet)
        let reporter = try Terminal.saying { try reporters(prepared, catalogue: catalogue) }
        // A folder's events come from inotify, started before the listing so nothing landing
        // meanwhile is missed (what both see is fed once: `WatchFeed` passes over a repeat).
        let watch = try Terminal.saying {
            inputs.isBucket ? nil
                : try FolderWatch(root: inputs.root, subfolders: inputs.subfolders) { arrivals.handle($0) }
        }
        let name = prepared.preset.name ?? (preset as NSString).lastPathComponent
        Terminal.error("Watching \(inputs.root)\(inputs.subfolders && !inputs.isBucket ? " and the folders below it" : "") for \(name); outputs in \(prepared.root.location). SIGTERM or Ctrl-C stops.")

        let token = CancellationToken()
        let stopping = StopRequest()
        let signals = WatchSignals(token: token, stop: {
            let running = feed.running
            Terminal.error("Stopping: no new files are taken" + (running == 0 ? "." : "; \(running) in progress finish\(running == 1 ? "es" : "") first."))
            stopping.request()
            watch?.stop()
            feed.close()
        })
        let timer = reconcile > 0 ? DispatchSource.makeTimerSource(queue: .global(qos: .utility)) : nil
        if let timer {
            timer.schedule(deadline: .now() + .seconds(reconcile), repeating: .seconds(reconcile))
            timer.setEventHandler { arrivals.listAll() }
            timer.resume()
        }
        let listener = startListener(feed: feed, arrivals: arrivals, logger: logger)
        var options = RunOptions(workers: work.jobs, eventDetail: reporter.detail, cancellation: token)
        options.s3 = prepared.s3
        let run = PresetRun.start(prepared.preset, items: .feed(feed.feed), output: prepared.root, options: options,
                                  manifest: prepared.manifest, logger: logger)
        arrivals.listAll()
        for await event in run.events {
            reporter.handle(event)
            if case .itemFinished(let report) = event { feed.ended(report.item, failed: report.failure != nil) }
        }
        timer?.cancel()
        // Notifications still waiting are answered "send again": their objects were not made.
        feed.releaseWaiters()
        if let listener {
            listener.stop.cancel()
            await listener.task.value
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

    /// Loads the preset, settles what is watched and where outputs go (refusing a loop), loads
    /// the plugins the preset uses and opens the manifest.
    private func prepare(_ catalogue: PluginCatalogue) throws -> (RunSetup.Opened, WatchedInputs) {
        let loaded = try RunSetup.load(preset, overrides: overriding.overrides, catalogue: catalogue, jobs: work.jobs)
        let cwd = FileManager.default.currentDirectoryPath
        let inputs = try WatchedInputs(preset: loaded, source: source, relativeTo: cwd)
        if inputs.isBucket && listen == nil {
            throw WorkbenchError.badInputs("A bucket's new objects are told over HTTP: give --listen HOST:PORT and point the bucket's notifications at it (docs/watch.md).")
        }
        let destination = work.out ?? loaded.outputFolder ?? cwd
        if let loop = inputs.loop(into: destination) { throw WorkbenchError.badInputs(loop) }
        return (try RunSetup.open(loaded, into: destination, client: S3Client(bucket: loaded.bucket), catalogue: catalogue), inputs)
    }

    /// Lines on the terminal, and the report and event log when asked for.
    private func reporters(_ prepared: RunSetup.Opened, catalogue: PluginCatalogue) throws -> ReporterGroup {
        let lines = LineReporter(quiet: output.quiet, verbose: output.verbose, outputRoot: prepared.root.location, out: TextOutput(Terminal.out),
                                 err: TextOutput(Terminal.error))
        return ReporterGroup([lines] + (try RunReportingOptions.records(report: report, events: events, trace: nil, preset: prepared.preset,
                                                                         presetPath: preset, root: prepared.root, catalogue: catalogue)))
    }

    /// The listener for `--listen` (health, metrics, and a bucket's notifications), running
    /// until its token is cancelled; nil without `--listen`.
    private func startListener(feed: WatchFeed, arrivals: WatchArrivals, logger: Logger) -> (stop: CancellationToken, task: Task<Void, Never>)? {
        guard let address = listen.flatMap(WatchListener.address) else { return nil }
        let bucket = arrivals.inputs.isBucket
        var notified: (@Sendable (S3EventNotification) async -> String?)?
        if bucket { notified = { @Sendable notification in await arrivals.handle(notification) } }
        let server = WatchListener(metrics: feed.metrics, host: address.host, port: address.port, notified: notified)
        let stopListening = CancellationToken()
        let task = Task {
            do {
                try await server.run(logger: logger, announce: { url in
                    Terminal.error((bucket ? "Notifications to \(url)/, h" : "H") + "ealth and metrics on \(url)/healthz and \(url)/metrics.")
                }, stop: stopListening)
            } catch {
                Terminal.error("Cannot listen on \(address.host):\(address.port): \(error)")
            }
        }
        return (stopListening, task)
    }
}

/// Whether SIGTERM asked the watch to stop (it then ends with status 0).
private final class StopRequest: Sendable {
    private let flag = Mutex(false)
    func request() { flag.withLock { $0 = true } }
    var requested: Bool { flag.withLock { $0 } }
}
