import Foundation
import WorkbenchCore

/// The objects under a bucket output's prefix and their sizes, as a listing finds them: how an
/// incremental run tells that an output it recorded is still there (a deleted or replaced
/// object is made again), as `stat` does in a folder.
///
/// The listing is read a page at a time as the run reaches it, not all before the first item:
/// S3 lists keys in the byte order of their UTF-8, so a path the pages read so far have not
/// reached waits for the next page, and a path they passed and do not hold is absent. A path
/// within the latest page asks for the one after it, so that it is on its way before the run
/// needs it. Items in the order of their output keys (files listed by name, `{name}.jpg`)
/// therefore cost one request per 1,000 keys spread over the run; outputs in several folders
/// make the listing run ahead to reach the later folder, which costs the same requests, only
/// sooner.
///
/// Keys are kept as 64-bit hashes with their sizes — 16 bytes an object — so a prefix of a
/// million objects costs about 40 MB, not its keys' text.
///
/// Callers that need a page not read yet wait on a condition while one of them fetches it; no
/// lock is held across the request.
public final class S3Inventory: OutputListing, @unchecked Sendable {
    // Safe: `state` is read and written only with `condition` locked; `fetch` is immutable.
    /// One page of a listing: paths relative to the prefix, in the listing's order.
    public struct Page: Sendable {
        public var objects: [(path: String, size: Int)]
        /// What asks for the page after this one (S3's continuation token); nil on the last.
        public var next: String?

        public init(objects: [(path: String, size: Int)], next: String?) {
            self.objects = objects
            self.next = next
        }
    }

    /// Starts fetching the page after `token` and returns a wait for it.
    public typealias Fetch = @Sendable (_ token: String) -> @Sendable () -> Result<Page, WorkbenchError>

    private struct State {
        var sizes: [UInt64: Int] = [:]
        /// The first and last keys of the latest page read (UTF-8 bytes); nil before any.
        var latest: (first: [UInt8], last: [UInt8])?
        /// What asks for the page after the latest, not asked yet.
        var token: String?
        /// The wait for the page after the latest, once asked; nil when not asked yet, or once
        /// the listing ended (or failed).
        var next: (@Sendable () -> Result<Page, WorkbenchError>)?
        var failure: WorkbenchError?
        var pages = 0
        /// A caller is fetching the next page; the others wait for it.
        var fetching = false

        var more: Bool { token != nil || next != nil }
    }

    private var state: State
    private let fetch: Fetch
    private let condition = NSCondition()

    /// A listing read as the run goes: `first` is its first page (fetched before the run, so
    /// that a bucket that cannot be listed stops the run before any item starts); `fetch`
    /// brings the pages after it.
    public init(first: Page, fetch: @escaping Fetch) {
        self.fetch = fetch
        var state = State()
        Self.take(first, into: &state)
        self.state = state
    }

    /// A listing already complete.
    public convenience init(objects: [(path: String, size: Int)] = []) {
        self.init(first: Page(objects: objects, next: nil), fetch: { _ in { .success(Page(objects: [], next: nil)) } })
    }

    private static func take(_ page: Page, into state: inout State) {
        for object in page.objects { state.sizes[ContentHash.number(object.path)] = object.size }
        if let first = page.objects.first, let last = page.objects.last {
            state.latest = (Array(first.path.utf8), Array(last.path.utf8))
        }
        state.pages += 1
        state.token = page.next
        state.next = nil
    }

    /// Asks for the page after the latest, if not asked yet; the wait for it.
    private func ask(_ state: inout State) -> (@Sendable () -> Result<Page, WorkbenchError>)? {
        if let token = state.token {
            state.next = fetch(token)
            state.token = nil
        }
        return state.next
    }

    /// Whether the pages read so far have not reached `key`, and more are coming.
    private static func short(of key: [UInt8], _ state: State) -> Bool {
        guard state.more else { return false }
        guard let latest = state.latest else { return true }
        return latest.last.lexicographicallyPrecedes(key)
    }

    /// The size of the object at `path`, or nil when the listing does not have it; waits for
    /// the pages that reach `path` in the listing's order. A path within the latest page asks
    /// for the page after it, so that it is there by the time the run needs it. When a page
    /// could not be fetched the paths past it count as absent (they are made again, never
    /// taken as there).
    public func size(of path: String) -> Int? {
        let key = Array(path.utf8)
        condition.lock()
        defer { condition.unlock() }
        while Self.short(of: key, state) {
            if state.fetching {
                condition.wait()
                continue
            }
            guard let wait = ask(&state) else { break }
            state.fetching = true
            condition.unlock()
            let result = wait()
            condition.lock()
            state.fetching = false
            switch result {
            case .success(let page):
                Self.take(page, into: &state)
            case .failure(let error):
                state.failure = error
                state.token = nil
                state.next = nil
            }
            condition.broadcast()
        }
        if let latest = state.latest, !key.lexicographicallyPrecedes(latest.first) { _ = ask(&state) }
        return state.sizes[ContentHash.number(path)]
    }

    /// Objects listed so far.
    public var count: Int { locked { $0.sizes.count } }

    /// Pages read so far.
    public var pages: Int { locked { $0.pages } }

    /// Why the listing stopped before its end, if a page could not be fetched: the outputs past
    /// it were made again. For the run's last words.
    public var failure: WorkbenchError? { locked { $0.failure } }

    private func locked<T>(_ read: (State) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return read(state)
    }
}
