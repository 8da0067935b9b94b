import Foundation
import Glibc
import Synchronization

/// A watch's items for its run (`ItemSource.feed`): each arrival of an input becomes an item,
/// one at a time per file — a file that arrives again while its item runs (replaced mid-way)
/// is fed again once that item has ended, so the last version is the one made. Deleted inputs
/// lose their outputs and record when asked (`prune`). The run's manifest decides what is up to
/// date, so a listing fed in full (at start, after lost events) redoes nothing unchanged.
public final class WatchFeed: Sendable {
    public let feed = ItemFeed()
    /// What the watch has done, for `/metrics` and `/healthz`.
    public let metrics = WatchMetrics()
    private let inputs: WatchedInputs

    private struct State {
        /// Each file keeps its index for the watch's life: the run's claims on output paths
        /// are by index, so a file made again claims its own files again.
        var indices: [String: Int] = [:]
        /// Files whose item is in the run, by path: its index.
        var running: [String: Int] = [:]
        /// Files that arrived again while their item ran, with what was said of the new version.
        var again: [String: InputIdentity?] = [:]
        /// What each file was when last fed (`version(of:)`), until its item fails: an arrival
        /// that finds it so again is a repeat (an event racing the listing at start, a
        /// reconcile, a notification sent twice) and is passed over.
        var versions: [String: String] = [:]
        /// When each running item's file arrived.
        var arrivals: [Int: ContinuousClock.Instant] = [:]
        /// Who waits for a file's item to end (a notification answered once it is done).
        var waiters: [String: [@Sendable (Bool) -> Void]] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    public init(_ inputs: WatchedInputs) {
        self.inputs = inputs
    }

    /// A file arrived (whole): fed, or fed again after the item of its last arrival. Returns
    /// whether it is an input at all.
    /// `event`: an event said so (counted), not a listing. `listed`: what a listing or a
    /// notification said of the object (its ETag and size). `whenDone(true)` is called once the
    /// item of this arrival has ended (at once when the path is not an input); `whenDone(false)`
    /// when the watch stopped before taking it.
    @discardableResult
    public func arrived(_ path: String, listed: InputIdentity? = nil, event: Bool = true,
                        whenDone: (@Sendable (Bool) -> Void)? = nil) -> Bool {
        let directory = inputs.directory(of: path)
        if event { metrics.received(input: directory != nil) }
        guard let directory else {
            whenDone?(true)
            return false
        }
        // Closed once by a writer that opened it again (made empty, then filled): its last
        // close will say when it is whole.
        if !inputs.isBucket && Self.isOpenForWriting(path) {
            whenDone?(true)
            return true
        }
        let version = inputs.isBucket ? Self.version(listed: listed) : Self.version(ofFile: path)
        var stopped = false, repeated = false
        let item = state.withLock { state -> Item? in
            guard !state.closed else {
                stopped = true
                return nil
            }
            if let version, state.versions[path] == version, state.running[path] == nil {
                repeated = true
                return nil
            }
            if let whenDone { state.waiters[path, default: []].append(whenDone) }
            if let version, state.versions[path] == version { return nil }
            state.versions[path] = version
            if state.running[path] != nil {
                state.again[path] = .some(listed)
                return nil
            }
            let index = state.indices[path] ?? state.indices.count
            state.indices[path] = index
            let item = Item(index: index, source: path, directory: directory, listed: listed)
            state.running[path] = index
            state.arrivals[index] = .now
            return item
        }
        if repeated { whenDone?(true) }
        if stopped { whenDone?(false) }
        if let item {
            metrics.queued()
            feed.append([item])
        }
        return true
    }

    /// A file as stat sees it: which file (a rename over it is another), its size and times.
    static func version(ofFile path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return "\(status.st_dev):\(status.st_ino):\(status.st_size):\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec):\(status.st_ctim.tv_sec).\(status.st_ctim.tv_nsec)"
    }

    /// An object as the bucket said it: its ETag (quoted in listings, bare in notifications)
    /// and size; nil when nothing was said, so the arrival is always fed.
    static func version(listed: InputIdentity?) -> String? {
        guard let etag = listed?.etag, !etag.isEmpty else { return nil }
        let bare = etag.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        return bare + ":" + (listed?.size.map(String.init) ?? "")
    }

    /// Whether another process holds the file open for writing: the kernel refuses a read
    /// lease then. Where leases cannot be had (another user's file, without CAP_LEASE), no.
    static func isOpenForWriting(_ path: String) -> Bool {
        // Linux's F_SETLEASE, which Swift's Glibc module does not name.
        let setLease: Int32 = 1024
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        if fcntl(descriptor, setLease, Int32(F_RDLCK)) == 0 {
            _ = fcntl(descriptor, setLease, Int32(F_UNLCK))
            return false
        }
        return errno == EAGAIN
    }

    /// Every input there now (at start, and when events were lost); a bucket is listed through
    /// `remote`. Returns why the listing failed or stopped part way, if it did.
    @discardableResult
    public func feedListing(remote: (any RemoteListing)? = nil) -> String? {
        let items: ItemSource
        do {
            items = try inputs.listing(remote: remote)
        } catch {
            return "\(error)"
        }
        let cursor = items.makeCursor()
        while let item = cursor.next() { arrived(item.source, listed: item.listed, event: false) }
        return cursor.failure()
    }

    /// The inputs in a folder that just appeared in the tree (and below it).
    public func feedListing(below folder: String) {
        guard case .folder(let glob) = inputs.place else { return }
        for found in glob.matches() where found.path.hasPrefix(folder + "/") { arrived(found.path, event: false) }
    }

    /// The run ended this item (`failed`, or made or found up to date): its file may be fed again.
    public func ended(_ item: Item, failed: Bool) {
        feed.release(item.index)
        let (ours, again, arrival, waiting) = state.withLock { state -> (Bool, InputIdentity??, ContinuousClock.Instant?, [@Sendable (Bool) -> Void]) in
            guard state.running[item.source] == item.index else { return (false, nil, nil, []) }
            state.running[item.source] = nil
            let again = state.again.removeValue(forKey: item.source)
            // A failed item is tried again when its file is next listed or announced, changed
            // or not; one made again is fed below, as it is now.
            if failed || again != nil { state.versions[item.source] = nil }
            // Waiters of a file made again wait for that version.
            let waiting = again != nil ? [] : state.waiters.removeValue(forKey: item.source) ?? []
            return (true, again, state.arrivals.removeValue(forKey: item.index), waiting)
        }
        if ours {
            let waited = arrival.map { $0.duration(to: .now) } ?? .zero
            metrics.ended(failed: failed, seconds: Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18)
        }
        for waiter in waiting { waiter(true) }
        if let again { arrived(item.source, listed: again, event: false) }
    }

    /// Items in the run now.
    public var running: Int { state.withLock { $0.running.count } }

    /// No more arrivals: the run ends once the items it has end.
    public func close() {
        state.withLock { $0.closed = true }
        feed.close()
    }

    /// Answers every waiter still waiting with `false` (the run ended: nothing more will end).
    public func releaseWaiters() {
        let waiting = state.withLock { state in defer { state.waiters = [:] }; return state.waiters.values.flatMap { $0 } }
        for waiter in waiting { waiter(false) }
    }

    /// A file (or object) was deleted: counted; returns whether it was an input.
    @discardableResult
    public func removed(_ path: String) -> Bool {
        let input = inputs.directory(of: path) != nil
        metrics.received(input: input)
        // The same bytes arriving again later are a new arrival (its outputs may be pruned).
        if input { state.withLock { _ = $0.versions.removeValue(forKey: path) } }
        return input
    }

    /// Removes what a deleted input made — the files its record lists, under `root` — and
    /// records it with none, so a file of that name arriving later is made anew. Returns the
    /// paths removed (relative to the root); nil when `path` is not an input.
    public func prune(_ path: String, manifest: RunManifest, root: OutputRoot) -> [String]? {
        guard let directory = inputs.directory(of: path) else { return nil }
        let key = manifest.recipes.key(of: Item(index: 0, source: path, directory: directory))
        guard let record = manifest.store.item(key), !record.outputs.isEmpty else { return [] }
        var removed: [String] = []
        var kept: [OutputFile] = []
        for output in record.outputs {
            if let remote = root.remote {
                // One not deleted stays in the record, so a later prune tries again.
                do { try remote.remove(output.path); removed.append(output.path) } catch { kept.append(output) }
            } else if unlink(root.path + "/" + output.path) == 0 || errno == ENOENT {
                removed.append(output.path)
            } else {
                kept.append(output)
            }
        }
        manifest.store.record(ManifestItem(input: key, identity: record.identity, outputs: kept))
        return removed
    }
}
