import Synchronization

/// The result of an async body that may end before its `start` returns: kept for the caller
/// then, so the scheduler ends it in a loop instead of from inside the start (`unlockAndFlush`).
final class InlineOutcome: Sendable {
    private let state = Mutex<(starting: Bool, result: Result<Payload, any Error>?)>((true, nil))

    /// From the body's completion: true when `start` has not returned yet — the result is kept
    /// for `started()`; false when the caller has moved on and the completion must end it.
    func keep(_ result: Result<Payload, any Error>) -> Bool {
        state.withLock { state in
            guard state.starting else { return false }
            state.result = result
            return true
        }
    }

    /// From the caller, once `start` returned: the result if it came before.
    func started() -> Result<Payload, any Error>? {
        state.withLock { state in
            state.starting = false
            return state.result
        }
    }
}
