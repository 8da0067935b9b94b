import Foundation
import Glibc
import Synchronization
import Testing
@testable import WorkbenchCore
import WorkbenchTestSupport

/// What a watch feeds its run: each version of a file once, whichever way it was heard of.
@Suite struct WatchFeedTests {
    private static let preset = """
        {"version": 1, "graph": [{"op": "read"}, {"op": "write", "path": "{name}.jpg"}]}
        """

    private func folderFeed() throws -> (WatchFeed, URL) {
        let folder = try Fixtures.temporaryDirectory("watch-feed")
        let inputs = try WatchedInputs(preset: try TestOps.load(Self.preset), source: folder.path, relativeTo: "/")
        return (WatchFeed(inputs), folder)
    }

    private func taken(_ feed: WatchFeed) -> [Item] {
        var items: [Item] = []
        while let item = feed.feed.take() { items.append(item) }
        return items
    }

    @Test func aFileHeardOfTwiceIsFedOnceUntilItChanges() throws {
        let (feed, folder) = try folderFeed()
        let file = folder.appendingPathComponent("a.jpg")
        try Data("first".utf8).write(to: file)
        // The listing at start and the event of the same arrival, racing it.
        #expect(feed.feedListing() == nil)
        feed.arrived(file.path)
        let first = taken(feed)
        #expect(first.map(\.source) == [file.path])
        // Heard of again while it runs, and after it ended: nothing more, and a notification's
        // answer comes at once once that version is made.
        feed.arrived(file.path)
        let answered = Mutex<[Bool]>([])
        feed.ended(first[0], failed: false)
        feed.arrived(file.path, whenDone: { done in answered.withLock { $0.append(done) } })
        #expect(taken(feed).isEmpty)
        #expect(answered.withLock { $0 } == [true])
        // Another file renamed over it (as uploaders deliver) is a new version: fed, as the same item.
        let replacement = folder.appendingPathComponent(".part-a.jpg")
        try Data("first".utf8).write(to: replacement)
        #expect(rename(replacement.path, file.path) == 0)
        feed.arrived(file.path)
        #expect(taken(feed).map(\.index) == [first[0].index])
    }

    @Test func aFileReplacedWhileItsItemRunsIsFedAgainAfterAndAFailureIsTriedAgain() throws {
        let (feed, folder) = try folderFeed()
        let file = folder.appendingPathComponent("b.jpg")
        try Data("one".utf8).write(to: file)
        feed.arrived(file.path)
        let running = taken(feed)
        try Data("two, longer".utf8).write(to: file)
        feed.arrived(file.path)
        #expect(taken(feed).isEmpty, "one item of a file at a time")
        feed.ended(running[0], failed: false)
        let again = taken(feed)
        #expect(again.count == 1)
        // That one fails: the same bytes heard of again are tried again.
        feed.ended(again[0], failed: true)
        feed.arrived(file.path, event: false)
        #expect(taken(feed).count == 1)
    }

    @Test func anObjectIsKnownByItsETagQuotedOrNotAndAfterItsDeletionIsNew() throws {
        let inputs = try WatchedInputs(preset: try TestOps.load(Self.preset), source: "s3://photos/in/", relativeTo: "/")
        let feed = WatchFeed(inputs)
        let key = "s3://photos/in/c.jpg"
        // A listing says "\"abc\"", a notification abc.
        feed.arrived(key, listed: InputIdentity(size: 10, etag: "\"abc\""), event: false)
        let first = taken(feed)
        #expect(first.count == 1)
        feed.ended(first[0], failed: false)
        feed.arrived(key, listed: InputIdentity(size: 10, etag: "abc"))
        #expect(taken(feed).isEmpty)
        // Without an ETag nothing can be told: fed, and the manifest decides.
        feed.arrived(key)
        let unnamed = taken(feed)
        #expect(unnamed.count == 1)
        feed.ended(unnamed[0], failed: false)
        // So is the next one with it: the version heard last was unknown.
        feed.arrived(key, listed: InputIdentity(size: 10, etag: "abc"))
        let named = try #require(taken(feed).first)
        feed.ended(named, failed: false)
        // Deleted, then the same bytes put again: made anew (a prune may have taken its outputs).
        #expect(feed.removed(key))
        feed.arrived(key, listed: InputIdentity(size: 10, etag: "abc"))
        #expect(taken(feed).count == 1)
    }
}
