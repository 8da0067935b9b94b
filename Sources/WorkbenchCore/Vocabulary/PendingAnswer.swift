import Foundation
import Synchronization

/// The answer a completion-style call will give (a transfer, an S3 request, an async stage),
/// for a caller that needs it as a return value. The one place a thread waits for such an
/// answer: `wait()` blocks, and is for synchronous callers only — a stage's `run` on the
/// pool's worker threads, whose queue's concurrency is what bounds such waits, and the CLI's
/// own start and end. Code on Swift concurrency's threads awaits `value`, which holds none.
public final class PendingAnswer<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var awaiting: [CheckedContinuation<Value, Never>] = []
    }

    private let state = Mutex(State())
    private let delivered = DispatchSemaphore(value: 0)

    public init() {}

    /// The answer; the first delivery wins, later ones are ignored.
    public func deliver(_ value: Value) {
        let awaiting = state.withLock { state -> [CheckedContinuation<Value, Never>]? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.awaiting = [] }
            return state.awaiting
        }
        guard let awaiting else { return }
        delivered.signal()
        awaiting.forEach { $0.resume(returning: value) }
    }

    /// Blocks the calling thread until the answer is delivered (see the type's note on who may).
    public func wait() -> Value {
        delivered.wait()
        // Every later wait returns at once.
        delivered.signal()
        guard let value = state.withLock({ $0.value }) else { preconditionFailure("PendingAnswer signalled before its delivery") }
        return value
    }

    /// The answer, awaited without holding a thread.
    public var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value? in
                    if let value = state.value { return value }
                    state.awaiting.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    /// Starts a completion-style call and waits for its answer (synchronous callers only).
    public static func waiting(for start: (@escaping @Sendable (Value) -> Void) -> Void) -> Value {
        let answer = PendingAnswer()
        start { answer.deliver($0) }
        return answer.wait()
    }
}
