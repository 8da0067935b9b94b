import Logging

/// One run of a preset over a list of items: the library's entry point.
///
/// ```swift
/// let preset = try PresetLoader(registry: registry).load(file: "sepia.json")
/// let items = try InputExpansion.items(of: preset)
/// let run = PresetRun(preset: preset, items: items, output: try OutputRoot("out"))
/// let summary = await run.run { event in print(event) }
/// ```
/// Cancelling the calling `Task` or the `cancellation` token stops the run: nothing new starts,
/// running stages stop at their next check, and no partial file is left.
public struct PresetRun: Sendable {
    public let preset: Preset
    public let items: [Item]
    public let output: OutputRoot
    public let cancellation: CancellationToken
    public let logger: Logger

    public init(preset: Preset, items: [Item], output: OutputRoot, cancellation: CancellationToken = CancellationToken(),
                logger: Logger = Logger(label: "workbench")) {
        self.preset = preset
        self.items = items
        self.output = output
        self.cancellation = cancellation
        self.logger = logger
    }

    /// Runs every item to the end (or until cancelled) and returns the summary.
    /// `onEvent` is called from worker threads, one event at a time, in order.
    public func run(onEvent: @escaping @Sendable (RunEvent) -> Void = { _ in }) async -> RunSummary {
        let scheduler = Scheduler(nodes: preset.nodes, queues: preset.queues, items: items, output: output,
                                  token: cancellation, logger: logger, onEvent: onEvent)
        let token = cancellation
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                scheduler.start { continuation.resume(returning: $0) }
            }
        } onCancel: {
            token.cancel()
        }
    }
}
