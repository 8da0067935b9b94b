import Foundation
import Synchronization

/// Holds what a provider found and hands it out until it nears its expiry. Within
/// `refreshAhead` seconds of it, the held credentials are still handed out while one fetch
/// runs in the background; only when none are held, or they are within `mustRenew` seconds
/// of expiring, do requests wait — as callbacks queued for that one fetch, not as threads.
final class CachingCredentials: CredentialProvider {
    let source: any CredentialProvider
    let refreshAhead: Double
    let mustRenew: Double
    private let state = Mutex(State())

    private struct State {
        var held: S3Credentials?
        var fetching = false
        var waiting: [@Sendable (Result<S3Credentials, S3Error>) -> Void] = []
        /// Fetches started, for tests and `--verbose`.
        var fetches = 0
    }

    init(_ source: any CredentialProvider, refreshAhead: Double = 900, mustRenew: Double = 300) {
        self.source = source
        self.refreshAhead = refreshAhead
        self.mustRenew = mustRenew
    }

    var isConfigured: Bool { source.isConfigured }
    var place: String { source.place }
    /// How many times the source was asked.
    var fetches: Int { state.withLock { $0.fetches } }
    /// Where the credentials in hand came from, for messages ("nowhere" before the first).
    var heldSource: String { state.withLock { $0.held?.source } ?? "nowhere" }

    func fetch(_ done: @escaping @Sendable (Result<S3Credentials, S3Error>) -> Void) {
        let now = Date()
        let (usable, starts) = state.withLock { state -> (S3Credentials?, Bool) in
            if let held = state.held, !held.expire(within: mustRenew, of: now) {
                let due = held.expire(within: refreshAhead, of: now) && !state.fetching
                if due { state.fetching = true; state.fetches += 1 }
                return (held, due)
            }
            state.waiting.append(done)
            let starts = !state.fetching
            if starts { state.fetching = true; state.fetches += 1 }
            return (nil, starts)
        }
        if let usable { done(.success(usable)) }
        if starts { refresh() }
    }

    private func refresh() {
        source.fetch { [self] result in
            let waiting = state.withLock { state in
                state.fetching = false
                if case .success(let found) = result { state.held = found }
                defer { state.waiting = [] }
                return state.waiting
            }
            // A background refresh that failed leaves the held credentials in use: the next
            // request inside the window tries again.
            for waiter in waiting { waiter(result) }
        }
    }
}
