import Foundation
import Logging

/// A decoded image as the scheduler sees it; engines provide the concrete type.
public protocol ImageHandle: Sendable {
    var width: Int { get }
    var height: Int { get }
    var bands: Int { get }
}

/// Encoded bytes: a download, a file read, or an encoder's output.
public struct Bytes: Sendable {
    public let data: Data
    /// Where the bytes came from (URL or path), for messages.
    public let origin: String

    public init(_ data: Data, origin: String) {
        self.data = data
        self.origin = origin
    }
}

/// What a node produces and hands to its downstream nodes.
public enum Payload: Sendable {
    case bytes(Bytes)
    case image(any ImageHandle)
    /// A file `write` put in place: its path relative to the output root and its size.
    case file(relativePath: String, byteCount: Int)

    public var kind: PayloadKind {
        switch self {
        case .bytes: return .bytes
        case .image: return .image
        case .file: return .file
        }
    }
}

/// What a stage body may know about the work it is doing.
public struct StageContext: Sendable {
    public let item: Item
    public let nodeID: String
    public let cancellation: CancellationToken
    public let output: OutputRoot
    public let logger: Logger

    public init(item: Item, nodeID: String, cancellation: CancellationToken, output: OutputRoot, logger: Logger) {
        self.item = item
        self.nodeID = nodeID
        self.cancellation = cancellation
        self.output = output
        self.logger = logger
    }
}

/// An op bound to validated parameters: the work one node does for one item.
///
/// Bodies are synchronous and may block; the scheduler runs them on the pool that matches
/// the op's `ExecutionKind`. They check `context.cancellation` where they can stop early.
public protocol Stage: Sendable {
    func run(_ inputs: [Payload], context: StageContext) throws -> Payload
}

/// An op as the registry holds it: its declaration and how to bind it to parameters.
public struct OpDefinition: Sendable {
    public let spec: OpSpec
    public let makeStage: @Sendable (ParameterValues) -> any Stage

    public init(_ spec: OpSpec, makeStage: @escaping @Sendable (ParameterValues) -> any Stage) {
        self.spec = spec
        self.makeStage = makeStage
    }
}
