import Foundation
import Synchronization

/// An op bound to validated parameters: the work one node does for one item.
///
/// Bodies are synchronous and may block; the scheduler runs them on the pool that matches
/// the op's `ExecutionKind`. They check `context.cancellation` where they can stop early.
public protocol Stage: Sendable {
    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload

    /// What the stage decided from the plan when it was bound, in words for `workbench
    /// explain` ("the direct path where the file allows"); none by default.
    var planNotes: [String] { get }
}

extension Stage {
    public var planNotes: [String] { [] }
}

/// A stage that writes a file whose path follows from the item alone: the engine claims the
/// path when the item is admitted, in input order (see `OutputClaims`).
protocol ClaimsOutput: Stage {
    /// The path relative to the output root; `runFileSuffix` goes into run-scope files.
    func destination(for item: Item, runFileSuffix: String?) throws -> String
}

/// A stage that is given a copy left out (`Payload.omitted`) rather than passing it on
/// unrun: `write`, which records the file as not made.
protocol RecordsOmission: Stage {}

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
        try PendingAnswer.waiting { answer in start(inputs, context: context, completion: answer) }.get()
    }
}
