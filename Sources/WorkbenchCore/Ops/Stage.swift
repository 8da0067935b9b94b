import Foundation
import Synchronization
import Logging

/// A decoded image as the scheduler sees it; engines provide the concrete type.
public protocol ImageHandle: AnyObject, Sendable {
    var width: Int { get }
    var height: Int { get }
    var bands: Int { get }
    /// About how many bytes its pixels take once computed.
    var pixelBytes: Int { get }
    /// The image to keep for later runs (`ResultCache`): its pixels computed now if it is a
    /// lazy pipeline, so a run taking it does not compute them again.
    func keptForReuse() throws -> any ImageHandle
}

extension ImageHandle {
    public var pixelBytes: Int { width * height * bands }
    public func keptForReuse() throws -> any ImageHandle { self }
}

/// Encoded bytes: a download, a file read, or an encoder's output.
///
/// A class: payloads are handed from node to node many times, and a reference is cheaper to
/// pass along than the `Data` and `String` it holds.
public final class Bytes: Sendable {
    public let data: Data
    /// Where the bytes came from (URL or path), for messages.
    public let origin: String
    /// When the bytes live in an (unlinked) temporary file, that file: `write` copies it
    /// kernel-side instead of reading `data`, so a large download never passes through memory.
    public let file: SpooledFile?
    /// The image the bytes encode, when an encoder made them: reports and the manifest say it.
    public let image: EncodedImage?
    /// Set by the stage that read the item's input on an incremental run: what the input is and
    /// which of the item's files need no redoing. With `wholeItem`, `data` is empty (unread).
    public let freshness: ItemFreshness?

    public init(_ data: Data, origin: String, file: SpooledFile? = nil, image: EncodedImage? = nil, freshness: ItemFreshness? = nil) {
        self.data = data
        self.origin = origin
        self.file = file
        self.image = image
        self.freshness = freshness
    }
}

/// An open, already unlinked file holding `count` bytes; closed when the last holder lets go.
public final class SpooledFile: Sendable {
    public let descriptor: Int32
    public let count: Int

    public init(descriptor: Int32, count: Int) {
        self.descriptor = descriptor
        self.count = count
    }

    deinit { close(descriptor) }
}

/// What a node produces and hands to its downstream nodes.
public enum Payload: Sendable {
    case bytes(Bytes)
    case image(any ImageHandle)
    /// A file `write` put in place.
    case file(OutputFile)

    public var kind: PayloadKind {
        switch self {
        case .bytes: return .bytes
        case .image: return .image
        case .file: return .file
        }
    }
}

/// The payloads a node receives: its `from` inputs and its reference parameters.
///
/// Stored the way the scheduler holds them (slots in edge order, names shared by every instance
/// of the node), so handing them to a body copies nothing.
public struct StageInputs: Sendable {
    let fromSlots: [Payload?]
    /// Names of the single references (`"@id"`), aligned with `referenceSlots`.
    let referenceNames: [String]
    let referenceSlots: [Payload?]
    /// Fan-ins (`"@id[*]"`) by parameter name.
    let lists: [String: [Payload]]

    init(fromSlots: [Payload?], referenceNames: [String], referenceSlots: [Payload?], lists: [String: [Payload]]) {
        self.fromSlots = fromSlots
        self.referenceNames = referenceNames
        self.referenceSlots = referenceSlots
        self.lists = lists
    }

    /// Inputs for calling a stage directly: `from` payloads, and references by name.
    public init(from: [Payload] = [], references: [String: [Payload]] = [:]) {
        self.init(fromSlots: from, referenceNames: [], referenceSlots: [], lists: references)
    }

    /// Payloads of the `from` list, in order.
    public var from: [Payload] { fromSlots.compactMap { $0 } }

    /// The first `from` payload: the input of a one-input op.
    public var first: Payload? { fromSlots.first ?? nil }

    /// The payload of reference parameter `name` (`"@id"`).
    public func reference(_ name: String) -> Payload? {
        if let i = referenceNames.firstIndex(of: name) { return referenceSlots[i] }
        return lists[name]?.first
    }

    /// Every payload of parameter `name`: all items' outputs (in item order, failed items left
    /// out) for a fan-in `"@id[*]"`, else the payloads of its references in the order written.
    public func references(_ name: String) -> [Payload] {
        if let list = lists[name] { return list }
        return referenceNames.indices.compactMap { referenceNames[$0] == name ? referenceSlots[$0] : nil }
    }
}

/// What a stage body may know about the work it is doing.
public struct StageContext: Sendable {
    /// What every node of a run shares; one reference, so making a context per body stays cheap.
    final class Shared: Sendable {
        let output: OutputRoot
        let logger: Logger
        let baseDirectory: String
        /// Where progress goes (the run's event stream), or nil when nobody listens.
        let progress: (@Sendable (ProgressEvent) -> Void)?
        /// Warnings stages reported, by item index, until the item's report takes them; one
        /// store for the run, shared by the workers' copies of this context.
        let warnings: WarningStore
        /// The recipes of an incremental run, for the stages that read the item's input.
        let recipes: RecipeBook?
        /// Inserted before the extension of files run-scope nodes write (per-shard sheets).
        let runFileSuffix: String?

        final class WarningStore: Sendable {
            let entries = Mutex<[Int: [String]]>([:])
        }

        func takeWarnings(of item: Int) -> [String] {
            warnings.entries.withLock { $0.removeValue(forKey: item) ?? [] }
        }

        init(output: OutputRoot, logger: Logger, baseDirectory: String, progress: (@Sendable (ProgressEvent) -> Void)? = nil,
             recipes: RecipeBook? = nil, runFileSuffix: String? = nil, sharing other: Shared? = nil) {
            self.warnings = other?.warnings ?? WarningStore()
            self.recipes = recipes ?? other?.recipes
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
    /// `node` names another node as the cause (the decode whose bytes were damaged).
    public func warn(_ message: String, node: String? = nil) {
        let node = node ?? nodeID
        shared.logger.debug("\(item.name): \(node): \(message)")
        shared.warnings.entries.withLock { $0[item.index, default: []].append("\(node): \(message)") }
    }

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

    public var output: OutputRoot { shared.output }
    /// On an incremental run, what decides which of the item's files need redoing.
    public var recipes: RecipeBook? { shared.recipes }
    public var logger: Logger { shared.logger }
    /// The preset's folder, against which relative paths in parameters resolve.
    public var baseDirectory: String { shared.baseDirectory }

    public init(item: Item, nodeID: String, cancellation: CancellationToken, output: OutputRoot, logger: Logger,
                baseDirectory: String = ".", attempt: Int = 1, timeout: Double? = nil) {
        self.init(item: item, nodeID: nodeID, cancellation: cancellation, attempt: attempt, timeout: timeout,
                  shared: Shared(output: output, logger: logger, baseDirectory: baseDirectory))
    }

    init(item: Item, nodeID: String, cancellation: CancellationToken, attempt: Int, timeout: Double?, shared: Shared) {
        self.item = item
        self.nodeID = nodeID
        self.cancellation = cancellation
        self.attempt = attempt
        self.timeout = timeout
        self.shared = shared
    }
}

/// An op bound to validated parameters: the work one node does for one item.
///
/// Bodies are synchronous and may block; the scheduler runs them on the pool that matches
/// the op's `ExecutionKind`. They check `context.cancellation` where they can stop early.
public protocol Stage: Sendable {
    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload
}

/// A stage whose work happens elsewhere (a download on the network loop): the scheduler starts
/// it and holds no thread while it runs. `start` must return at once and call `completion`
/// exactly once, from any thread — but never from inside a cancellation handler of the context's
/// token (those may run while the scheduler holds its lock, which the completion takes).
public protocol AsyncStage: Stage {
    func start(_ inputs: StageInputs, context: StageContext,
               completion: @escaping @Sendable (Result<Payload, any Error>) -> Void)
}

extension AsyncStage {
    /// Runs the stage to the end on the calling thread (for callers outside the scheduler).
    public func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Payload, any Error>?>(nil)
        start(inputs, context: context) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0 }?.get() ?? { throw WorkbenchError.cancelled }()
    }
}

/// An op as the registry holds it: its declaration and how to bind it to parameters.
public struct OpDefinition: Sendable {
    public let spec: OpSpec
    public let makeStage: @Sendable (ParameterValues, NodeFacts) -> any Stage

    public init(_ spec: OpSpec, makeStage: @escaping @Sendable (ParameterValues) -> any Stage) {
        self.spec = spec
        self.makeStage = { parameters, _ in makeStage(parameters) }
    }

    /// For stages that adapt to where their node sits in the graph.
    public init(_ spec: OpSpec, makeStageInGraph: @escaping @Sendable (ParameterValues, NodeFacts) -> any Stage) {
        self.spec = spec
        self.makeStage = makeStageInGraph
    }
}

/// What the graph tells a stage about its node, found when the preset is linked.
public struct NodeFacts: Sendable {
    /// The node's image is evaluated once, top to bottom: one consumer reads it through `from`,
    /// reads sequentially, and the same holds for that consumer's image, down to an encoder.
    /// A decoder streams (sequential access) only then.
    public let outputIsReadOnce: Bool
    /// The op of the one node that reads this node's output, through `from` and in the same
    /// scope, when no other node reads it: a decode followed only by a resize hands the resize
    /// what it needs to decode and shrink in one step.
    public let soleReaderOp: String?

    public init(outputIsReadOnce: Bool = false, soleReaderOp: String? = nil) {
        self.outputIsReadOnce = outputIsReadOnce
        self.soleReaderOp = soleReaderOp
    }
}
