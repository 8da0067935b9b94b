import Synchronization
import Logging

/// What a stage body may know about the work it is doing.
public struct StageContext: Sendable {
    /// What every node of a run shares; one reference, so making a context per body stays cheap.
    final class Shared: Sendable {
        let output: OutputRoot
        let logger: Logger
        let baseDirectory: String
        /// Where progress goes (the run's event stream), or nil when nobody listens.
        let progress: (@Sendable (ProgressEvent) -> Void)?
        /// Warnings and decodes stages reported, by item index, until the item's report takes
        /// them; one store for the run, shared by the workers' copies of this context.
        let notes: NoteStore
        /// On an incremental run, what earlier runs recorded of the inputs they read.
        let inputHistory: (any InputHistory)?
        /// Inserted before the extension of files run-scope nodes write (per-shard sheets).
        let runFileSuffix: String?
        /// What the run's caller handed to the stages (`RunOptions.services`).
        let services: StageServices

        final class NoteStore: Sendable {
            let entries = Mutex<[Int: ItemNotes]>([:])
        }

        func takeNotes(of item: Int) -> ItemNotes {
            notes.entries.withLock { $0.removeValue(forKey: item) ?? ItemNotes() }
        }

        init(output: OutputRoot, logger: Logger, baseDirectory: String, progress: (@Sendable (ProgressEvent) -> Void)? = nil,
             inputHistory: (any InputHistory)? = nil, runFileSuffix: String? = nil, services: StageServices? = nil,
             sharing other: Shared? = nil) {
            self.notes = other?.notes ?? NoteStore()
            self.services = services ?? other?.services ?? StageServices()
            self.inputHistory = inputHistory ?? other?.inputHistory
            self.runFileSuffix = runFileSuffix ?? other?.runFileSuffix
            self.output = output
            self.logger = logger
            self.baseDirectory = baseDirectory
            // A worker's copy reports where the run's context does.
            self.progress = progress ?? other?.progress
        }
    }

    /// Whether anyone listens to `report(bytes:of:)` (so stages can skip the work otherwise).
    public var wantsProgress: Bool { shared.progress != nil }

    /// Reports how many bytes the node has moved so far, of how many if known.
    public func report(bytes: Int, of expected: Int?) {
        shared.progress?(ProgressEvent(item: item, node: nodeID, bytes: bytes, expectedBytes: expected))
    }

    /// Where a CPU stage reports how many pixels it has computed so far, of how many (from
    /// any thread), or nil when nobody listens.
    public var pixelProgress: (@Sendable (_ done: Int, _ total: Int) -> Void)? {
        guard let progress = shared.progress else { return nil }
        let item = item, node = nodeID
        return { done, total in progress(ProgressEvent(item: item, node: node, bytes: done, expectedBytes: total, unit: .pixels)) }
    }

    /// Records something the item's report should say although the node succeeded (a decoder
    /// worked around damage): the item ends "ok (with warnings: …)".
    /// `node` names another node as the cause (the decode whose bytes were damaged). Said once
    /// an item: every node reading damaged pixels finds the same damage, and which of them
    /// finds it (one, or each) depends on whether libvips' log was theirs alone at the time.
    public func warn(_ message: String, node: String? = nil) {
        let node = node ?? nodeID
        let text = "\(node): \(message)"
        let added = shared.notes.entries.withLock { entries -> Bool in
            guard !(entries[item.index]?.warnings.contains(text) ?? false) else { return false }
            entries[item.index, default: ItemNotes()].warnings.append(text)
            return true
        }
        if added { shared.logger.debug("\(item.name): \(text)") }
    }

    /// Records that this node decoded the item's pixels, in the words `--verbose` prints (which
    /// decoder, at what scale, to what size): the item's report lists each (`decodes`), so what
    /// a plan promised — one decode an item — can be counted.
    public func recordDecode(_ words: String) {
        shared.logger.debug("\(item.name): \(words)")
        shared.notes.entries.withLock { $0[item.index, default: ItemNotes()].decodes.append("\(nodeID): \(words)") }
    }

    /// Records numbers this node measured for the item (an encode's chosen quality and score),
    /// with the words `--verbose` prints; the item's report lists them.
    public func recordMeasurement(_ values: [NodeMeasurement.Value], words: String) {
        shared.logger.debug("\(item.name): \(nodeID): \(words)")
        let measurement = NodeMeasurement(node: nodeID, values: values, words: words)
        shared.notes.entries.withLock { $0[item.index, default: ItemNotes()].measurements.append(measurement) }
    }

    /// Records a decision the node made for this item that the run's report says once for all
    /// items alike (a transparent image flattened onto white for JPEG), not as a warning.
    public func note(_ text: String) {
        let entry = "\(nodeID): \(text)"
        shared.notes.entries.withLock { entries in
            if !(entries[item.index]?.notes.contains(entry) ?? false) { entries[item.index, default: ItemNotes()].notes.append(entry) }
        }
    }

    /// On an incremental run, the stage that read the item's input records what it read: its
    /// content hash, size and time, or the server's validators. From it the scheduler decides
    /// which of the item's files need no redoing, and the manifest keeps it for the next run.
    public func recordInput(_ identity: InputIdentity) { inputRecord?.record(identity) }

    /// The item; for run-scope nodes a stand-in named "run" with an empty source.
    public let item: Item
    public let nodeID: String
    /// Raised when this node is cancelled, times out, or the run stops.
    public let cancellation: CancellationToken
    /// 1 for the first attempt, more when the node is retried.
    public let attempt: Int
    /// The node's `timeout` in seconds, for engines with deadlines of their own (nil: none).
    public let timeout: Double?
    let shared: Shared
    /// Set on incremental runs only (see `recordInput`).
    let inputRecord: (any InputRecord)?

    public var output: OutputRoot { shared.output }
    /// On an incremental run, what earlier runs recorded of the inputs they read: the stage
    /// reading the item's input asks it whether the input need be read at all.
    public var inputHistory: (any InputHistory)? { shared.inputHistory }
    public var logger: Logger { shared.logger }
    /// The preset's folder, against which relative paths in parameters resolve.
    public var baseDirectory: String { shared.baseDirectory }
    /// A value the run's caller handed in under `key` (`RunOptions.services`), if any.
    public func service<Key: StageServiceKey>(_ key: Key.Type) -> Key.Value? { shared.services[key] }

    public init(item: Item, nodeID: String, cancellation: CancellationToken, output: OutputRoot, logger: Logger,
                baseDirectory: String = ".", attempt: Int = 1, timeout: Double? = nil, services: StageServices = StageServices()) {
        self.init(item: item, nodeID: nodeID, cancellation: cancellation, attempt: attempt, timeout: timeout,
                  shared: Shared(output: output, logger: logger, baseDirectory: baseDirectory, services: services))
    }

    init(item: Item, nodeID: String, cancellation: CancellationToken, attempt: Int, timeout: Double?, shared: Shared,
         inputRecord: (any InputRecord)? = nil) {
        self.inputRecord = inputRecord
        self.item = item
        self.nodeID = nodeID
        self.cancellation = cancellation
        self.attempt = attempt
        self.timeout = timeout
        self.shared = shared
    }
}
