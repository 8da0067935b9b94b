import Foundation
import Synchronization
import WorkbenchCore
import WorkbenchNet
import WorkbenchServe

/// How a watch's events reach its feed: a folder's from inotify, a bucket's as notifications
/// posted to the listener. What is said to the user goes through `Terminal`.
struct WatchArrivals: Sendable {
    let feed: WatchFeed
    let inputs: WatchedInputs
    let manifest: RunManifest
    let root: OutputRoot
    let remote: S3Listing?
    let prune: Bool
    let quiet: Bool
    /// The newest event seen of each object, so an older one arriving late is passed over.
    let order = EventOrder()

    /// A folder's event.
    func handle(_ event: FolderEvent) {
        switch event {
        case .arrived(let path):
            feed.arrived(path)
        case .folderAppeared(let folder):
            // Files that landed before the new folder was watched.
            feed.feedListing(below: folder)
        case .removed(let path):
            removed(path)
        case .mustList(let reason):
            Terminal.error("Listing \(inputs.root) again: \(reason).")
            listAll()
        case .sourceLost(let reason):
            Terminal.error("Not watching any more: \(reason). Make it again and restart the watch.")
            feed.metrics.lost(reason)
        }
    }

    /// A bucket's notification, answered once every object it names is done: nil, or why it
    /// could not be taken (the sender then tries again).
    func handle(_ notification: S3EventNotification) async -> String? {
        switch notification {
        case .subscriptionConfirmation(let url):
            return await SubscriptionConfirmation.confirm(url)
        case .records(let records):
            var taken = true
            for record in records where order.isNewest(record) {
                switch record.kind {
                case .removed:
                    removed(record.source)
                case .created:
                    let listed = InputIdentity(size: record.size, etag: record.etag)
                    let done = await withCheckedContinuation { (answer: CheckedContinuation<Bool, Never>) in
                        feed.arrived(record.source, listed: listed, whenDone: { answer.resume(returning: $0) })
                    }
                    taken = taken && done
                }
            }
            return taken ? nil : "The watch is stopping: send the notification again."
        }
    }

    /// Every input there now, fed (at start, on a timer, after lost events).
    func listAll() {
        if let problem = feed.feedListing(remote: remote) { Terminal.error("Listing \(inputs.root): \(problem)") }
    }

    private func removed(_ path: String) {
        guard feed.removed(path), prune else { return }
        guard let removed = feed.prune(path, manifest: manifest, root: root), !removed.isEmpty else { return }
        if !quiet { Terminal.out("pruned  \((path as NSString).lastPathComponent): removed \(removed.joined(separator: ", "))") }
    }
}

/// S3's `sequencer` per key: events of one object are ordered by it (hexadecimal, compared once
/// padded to one length); events arrive out of order in a burst (Ceph posts them concurrently).
final class EventOrder: Sendable {
    private let newest = Mutex<[String: String]>([:])

    /// Whether `record` is not older than an event of its object already seen (a repeat of the
    /// same event is taken, and answered once that version is made); true without a sequencer.
    func isNewest(_ record: S3EventNotification.Record) -> Bool {
        guard let sequencer = record.sequencer, !sequencer.isEmpty else { return true }
        return newest.withLock { newest in
            if let seen = newest[record.source], Self.compare(sequencer, seen) < 0 { return false }
            newest[record.source] = sequencer
            return true
        }
    }

    /// -1, 0 or 1 as `a` orders before, with or after `b`.
    static func compare(_ a: String, _ b: String) -> Int {
        let width = max(a.count, b.count)
        let x = String(repeating: "0", count: width - a.count) + a.uppercased(), y = String(repeating: "0", count: width - b.count) + b.uppercased()
        return x < y ? -1 : x == y ? 0 : 1
    }
}
