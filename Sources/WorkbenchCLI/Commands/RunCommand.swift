import ArgumentParser
import Foundation
import Logging
import WorkbenchCore
import WorkbenchNet
import WorkbenchPlugins
import WorkbenchReports
import WorkbenchVips

/// `workbench run`: runs a preset over its inputs or the inputs given.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a preset over its inputs, or over the INPUTs given instead.",
        discussion: """
            Ctrl-C stops the run: running stages stop, nothing half-written is left, and the exit status is 130.

            Examples:
              workbench run Presets/sepia-thumbnails.json
              workbench run look.json ~/Pictures/trip --out /tmp/trip
                (other inputs, another output folder)
              workbench run look.json --dry-run
                (the files it would write, and collisions; writes nothing)
              workbench run look.json --report report.json --trace trace.json
                (open the trace in ui.perfetto.dev)
              workbench run look.json --progress plain > log.txt
              workbench run look.json --force
                (redo every file; by default only files whose recipe changed are redone)
              workbench run look.json --shard 2/8 --out /shared/out
                (one of 8 processes, e.g. a Kubernetes Indexed Job: --shard auto/8)
              workbench run look.json s3://photos/originals/ --out s3://photos/thumbnails/
                (a bucket in, a bucket out; credentials as the AWS tools find them)
            """)

    @Argument(help: "The preset file.")
    var preset: String

    @Argument(help: "URLs (http, https, s3), image files or folders to process instead of the preset's inputs; or one s3://bucket/prefix/ for every object under it.")
    var inputs: [String] = []

    @OptionGroup var work: WorkOptions

    @Flag(name: .long, help: "Stop at the first failed item (exit status 1).")
    var failFast = false

    @Flag(name: .long, help: "Validate, expand the inputs and print each item's output paths (and collisions); read and write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Allow libvips loaders and savers it marks untrusted (ImageMagick, PDF, SVG, FITS, …); only for files you trust.")
    var allowUntrusted = false

    @OptionGroup var output: OutputOptions

    @OptionGroup var overriding: OverrideOptions

    @OptionGroup var incremental: IncrementalOptions

    @OptionGroup var reporting: RunReportingOptions

    @OptionGroup var plugins: PluginOptions

    func run() async throws {
        let logger = RunSetup.startLibraries(output, allowUntrusted: allowUntrusted)
        let catalogue = plugins.catalogue()
        defer { catalogue.shutdown() }
        guard let (prepared, items) = try Terminal.saying({ try prepare(catalogue) }) else { return }
        RunSetup.sayWhatWasCleared(prepared.root)
        VipsRuntime.shareCores(workers: work.workers, items: items.count ?? Int.max)
        let reporters = try Terminal.saying {
            try reporting.reporters(output: output, preset: prepared.preset, presetPath: preset, root: prepared.root, catalogue: catalogue)
        }
        try await execute(prepared, items: items, reporters: reporters, catalogue: catalogue, logger: logger)
    }

    /// Loads the preset, lists the inputs, opens the output root and the manifest and loads the
    /// plugins the preset uses; nil once a dry run has shown its items.
    private func prepare(_ catalogue: PluginCatalogue) throws -> (RunSetup.Opened, ItemSource)? {
        let loaded = try RunSetup.load(preset, overrides: overriding.overrides, catalogue: catalogue, jobs: work.jobs)
        let cwd = FileManager.default.currentDirectoryPath
        if let refusal = inputs.lazy.compactMap(loaded.refusal(ofInput:)).first { throw WorkbenchError.badInputs(refusal + ".") }
        let s3 = S3Client(bucket: loaded.bucket)
        let listing = S3Listing(client: s3)
        var items = inputs.isEmpty ? try InputExpansion.source(of: loaded, remote: listing) : try InputExpansion.source(of: inputs, relativeTo: cwd, remote: listing)
        let shard = try incremental.resolvedShard()
        try incremental.checkFanIns(of: loaded, shard: shard)
        let destination = work.out ?? loaded.outputFolder ?? cwd
        if dryRun {
            if let shard { items = items.sharded(shard, base: loaded.baseDirectory) }
            let planned = S3Location.isS3(destination) ? destination : URL(fileURLWithPath: destination).standardizedFileURL.path
            if DryRun.show(loaded, items: items, root: planned) { return nil }
            throw ExitCode(ExitStatus.badPreset)
        }
        let opened = try RunSetup.open(loaded, into: destination, client: s3, catalogue: catalogue, shard: shard, force: incremental.force,
                                       trustsManifest: incremental.trustManifest)
        if let shard {
            let sharding = opened.preset, root = opened.root
            items = items.sharded(shard, base: sharding.baseDirectory, passedOver: { root.reserveOutputs(of: $0, in: sharding) })
        }
        return (opened, items)
    }

    /// Runs the items, with Ctrl-C trapped and every event to the reporters; throws the run's
    /// exit status when it is not 0.
    private func execute(_ prepared: RunSetup.Opened, items: ItemSource, reporters: (group: ReporterGroup, display: ProgressDisplay?), catalogue: PluginCatalogue,
                         logger: Logger) async throws {
        let token = CancellationToken()
        let display = reporters.display
        let finished = FinishedItems()
        let trap = SignalTrap(token: token, notice: { line in display.map { $0.notice(line) } ?? Terminal.error(line) },
                              beforeExit: {
                                  // Parts of an upload nobody aborts stay (and are billed): abort them first.
                                  prepared.root.remote?.abortUploadsInFlight()
                                  display?.restoreCursor()
                                  Terminal.error(finished.quitLine)
                              })
        let pluginsStop = token.onCancel { catalogue.cancel() }
        defer { token.removeHandler(pluginsStop) }
        let reporter = reporters.group
        var options = RunOptions(workers: work.jobs, failFast: failFast, eventDetail: reporter.detail, cancellation: token)
        if incremental.perShardSheets { options.runFileSuffix = prepared.manifest.shard?.label }
        options.s3 = prepared.s3
        let run = PresetRun.start(prepared.preset, items: items, output: prepared.root, options: options,
                                  manifest: prepared.manifest, logger: logger)
        // The display's rate and ETA move between events too.
        let ticker = reporters.display.map { display in
            let timer = DispatchSource.makeTimerSource(queue: .global())
            timer.schedule(deadline: .now() + 0.1, repeating: 0.1)
            timer.setEventHandler { display.tick() }
            timer.resume()
            return timer
        }
        for await event in run.events {
            finished.note(event)
            reporter.handle(event)
        }
        ticker?.cancel()
        let summary = await run.result
        do {
            try reporter.finish()
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(summary.exitCode == ExitStatus.ok ? 1 : summary.exitCode)
        }
        withExtendedLifetime(trap) {}
        if let warning = prepared.manifest.listingWarning { Terminal.error(warning) }
        if summary.exitCode != ExitStatus.ok { throw ExitCode(summary.exitCode) }
    }
}
