import Synchronization

/// A one-way flag that says work should stop, with handlers run once when it is raised.
///
/// Bodies poll `isCancelled` between steps; engines that can abort running work (a transfer,
/// an evaluation) register a handler.
public final class CancellationToken: Sendable {
    private struct State {
        var cancelled = false
        var nextKey = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    private let flag = Atomic<Bool>(false)
    private let state = Mutex(State())

    public init() {}

    public var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Never cancelled and no handler left: the scheduler may hand it to another body.
    var isReusable: Bool { state.withLock { !$0.cancelled && $0.handlers.isEmpty } }

    /// Raises the flag and runs the handlers; later calls do nothing.
    public func cancel() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            flag.store(true, ordering: .releasing)
            defer { state.handlers = [:] }
            return Array(state.handlers.values)
        }
        for handler in handlers { handler() }
    }

    /// Runs `handler` when the token is cancelled (at once if it already is).
    /// Returns a key for `removeHandler`, or nil if the handler already ran.
    @discardableResult
    public func onCancel(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let key = state.withLock { state -> Int? in
            guard !state.cancelled else { return nil }
            state.nextKey += 1
            state.handlers[state.nextKey] = handler
            return state.nextKey
        }
        if key == nil { handler() }
        return key
    }

    public func removeHandler(_ key: Int?) {
        guard let key else { return }
        state.withLock { _ = $0.handlers.removeValue(forKey: key) }
    }
}
