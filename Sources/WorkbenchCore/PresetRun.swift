import Foundation
import Logging

/// A run of a preset over a list of items: the library's entry point.
///
/// ```swift
/// let preset = try PresetLoader(registry: registry).load(file: "sepia.json")
/// let run = PresetRun.start(preset, items: try InputExpansion.source(of: preset), output: try OutputRoot("out"))
/// Task { for await event in run.events { print(event) } }
/// let summary = await run.result
/// ```
/// The run starts at once, on threads of its own or on the `WorkerPool` its options name. `cancel()`, the options' cancellation token, or
/// cancelling the `Task` that awaits `result` stops it: nothing new starts, running stages are
/// told to stop, and no partial file is left.
public final class PresetRun: Sendable {
    public let preset: Preset
    /// The folder the run writes into.
    public let output: OutputRoot
    /// Every event of the run, in order, ending after `runFinished`. Iterate it once.
    public let events: AsyncStream<RunEvent>
    private let scheduler: RunScheduler
    private let recorder: ManifestRecorder?

    private init(preset: Preset, output: OutputRoot, scheduler: RunScheduler, events: AsyncStream<RunEvent>, recorder: ManifestRecorder?) {
        self.preset = preset
        self.output = output
        self.scheduler = scheduler
        self.events = events
        self.recorder = recorder
    }

    /// Starts running `preset` over `items`, writing under `output`. With a `manifest`, files
    /// whose recipe is unchanged since an earlier run are left as they are, and the manifest
    /// is written before the run's end is reported.
    public static func start(_ preset: Preset, items: ItemSource, output: OutputRoot, options: RunOptions = RunOptions(),
                             manifest: RunManifest? = nil, logger: Logger = Logger(label: "workbench")) -> PresetRun {
        let (stream, continuation) = AsyncStream.makeStream(of: RunEvent.self, bufferingPolicy: .unbounded)
        let plan = RunPlan(preset: preset, cores: ProcessInfo.processInfo.activeProcessorCount)
        var options = options
        var engineEvents = EventPump(deliver: { burst in for event in burst { continuation.yield(event) } },
                                     end: { continuation.finish() })
        var recorder: ManifestRecorder?
        if let manifest {
            // The manifest is made from item reports, whatever the caller listens to.
            let forwardItems = options.eventDetail != .none
            if options.eventDetail == .none { options.eventDetail = .items }
            let manifestRecorder = ManifestRecorder(manifest, forward: continuation, forwardItems: forwardItems)
            engineEvents = manifestRecorder.pump()
            recorder = manifestRecorder
        }
        let scheduler = RunScheduler(plan: plan, items: items, output: output, baseDirectory: preset.baseDirectory,
                               options: options, logger: logger, events: engineEvents, recipes: manifest?.recipes)
        let run = PresetRun(preset: preset, output: output, scheduler: scheduler, events: stream, recorder: recorder)
        options.cancellation.onCancel { [weak scheduler] in scheduler?.cancel() }
        scheduler.start()
        return run
    }

    /// The summary, once every node has ended. Cancelling the awaiting task cancels the run.
    public var result: RunSummary {
        get async {
            let scheduler = self.scheduler, recorder = self.recorder
            return await withTaskCancellationHandler {
                let summary = await scheduler.result()
                return await recorder?.finalSummary() ?? summary
            } onCancel: {
                scheduler.cancel()
            }
        }
    }

    /// The absolute path of a file the run wrote, from its path relative to the output root.
    public func outputPath(_ relative: String) -> String { output.path + "/" + relative }

    /// Blocks the calling thread until the run ends (for callers outside Swift concurrency;
    /// never call it from an async context, whose threads are few).
    public func waitUntilFinished() -> RunSummary {
        let summary = scheduler.waitForEnd()
        return recorder?.waitForSummary() ?? summary
    }

    /// Stops the run: waiting work is dropped, running stages are told to stop.
    public func cancel() { scheduler.cancel() }

    /// Cancels one item's unfinished nodes (shared work stays while other items need it).
    public func cancel(item index: Int) { scheduler.cancelItem(index) }

    /// Starts nothing new until `resume()`; running nodes finish.
    public func suspend() { scheduler.setSuspended(true, queue: nil) }
    public func resume() { scheduler.setSuspended(false, queue: nil) }

    /// Starts nothing new from one queue until `resume(queue:)`.
    public func suspend(queue: String) { scheduler.setSuspended(true, queue: queue) }
    public func resume(queue: String) { scheduler.setSuspended(false, queue: queue) }

    /// Sets an item's priority: raised ahead of work of lower QoS, or lowered behind it (the
    /// shared nodes it reads are only ever raised).
    public func prioritize(item index: Int, to qos: QoS = .userInteractive) { scheduler.prioritize(item: index, to: qos) }
}
