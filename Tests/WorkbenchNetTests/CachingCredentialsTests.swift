import Foundation
import Synchronization
import Testing
@testable import WorkbenchNet

extension CredentialProvider {
    /// Waits for `fetch` (tests only: the client never waits).
    func resolve() throws -> S3Credentials {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<S3Credentials, S3Error>?>(nil)
        fetch { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try #require(outcome.withLock { $0 }).get()
    }
}

/// A source that answers only when the test says, with keys that expire when the test says.
private final class HeldSource: CredentialProvider {
    let isConfigured = true
    let place = "a test source"
    private let state = Mutex<(asked: Int, pending: [@Sendable (Result<S3Credentials, S3Error>) -> Void])>((0, []))

    var asked: Int { state.withLock { $0.asked } }

    func fetch(_ done: @escaping @Sendable (Result<S3Credentials, S3Error>) -> Void) {
        state.withLock {
            $0.asked += 1
            $0.pending.append(done)
        }
    }

    /// Answers every waiting fetch with key `name`, expiring `expiresIn` seconds from now.
    func answer(_ name: String, expiresIn: Double?) {
        let waiting = state.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
        let keys = S3Credentials(accessKey: name, secret: "s", expiration: expiresIn.map { Date().addingTimeInterval($0) }, source: "test")
        for done in waiting { done(.success(keys)) }
    }
}

/// The credential cache: one fetch for many requests, a refresh ahead of expiry that holds
/// nobody up, and requests that wait as callbacks when nothing usable is held.
@Suite struct CachingCredentialsTests {
    /// The access keys requests were handed, in the order they were handed.
    private final class Answers: Sendable {
        private let keys = Mutex<[String]>([])
        var all: [String] { keys.withLock { $0 } }
        func collect(from provider: CachingCredentials) {
            // A failure is recorded as such, and the expectations below name keys only.
            provider.fetch { [self] result in keys.withLock { $0.append((try? result.get().accessKey) ?? "failed") } }
        }
    }

    @Test func requestsWithNothingHeldWaitForOneFetch() {
        let source = HeldSource(), cache = CachingCredentials(source)
        let got = Answers()
        for _ in 0..<5 { got.collect(from: cache) }
        // Nobody answered yet, and no thread is blocked: five callbacks wait on one fetch.
        #expect(got.all.isEmpty && source.asked == 1)
        source.answer("A", expiresIn: 3_600)
        #expect(got.all == Array(repeating: "A", count: 5))
        got.collect(from: cache)
        #expect(got.all.last == "A" && source.asked == 1)
    }

    @Test func keysNearTheirExpiryAreHandedOutWhileOneRefreshRuns() {
        let source = HeldSource(), cache = CachingCredentials(source, refreshAhead: 900, mustRenew: 300)
        let got = Answers()
        got.collect(from: cache)
        source.answer("old", expiresIn: 600) // inside the refresh window, outside the must-renew one
        // Each request gets the old keys at once; only the first starts a refresh.
        got.collect(from: cache)
        got.collect(from: cache)
        #expect(got.all == ["old", "old", "old"] && source.asked == 2)
        source.answer("new", expiresIn: 3_600)
        got.collect(from: cache)
        #expect(got.all.last == "new" && source.asked == 2)
    }

    @Test func keysAboutToExpireAreNotUsedAndLongLivedOnesNeverRefresh() {
        let source = HeldSource(), cache = CachingCredentials(source, refreshAhead: 900, mustRenew: 300)
        let got = Answers()
        got.collect(from: cache)
        source.answer("dying", expiresIn: 60)
        got.collect(from: cache)
        // Sixty seconds left: the request waits for fresh keys instead of failing at the server.
        #expect(got.all == ["dying"] && source.asked == 2)
        source.answer("static", expiresIn: nil)
        for _ in 0..<3 { got.collect(from: cache) }
        #expect(got.all == ["dying", "static", "static", "static", "static"] && source.asked == 2)
    }
}
