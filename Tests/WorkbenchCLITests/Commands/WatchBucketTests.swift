import Foundation
import Testing
import WorkbenchTestSupport

/// `workbench watch s3://bucket/prefix/ --listen …` against a real S3 server (moto, on
/// 127.0.0.1) with its event notifications posted by the test, as a gateway posts them.
@Suite struct WatchBucketTests {
    /// One record as Ceph's gateway and AWS send it: the key URL-encoded, a space as "+".
    static func event(_ name: String, bucket: String, key: String, size: Int = 1000, sequencer: String = "0000000000000001") -> String {
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/._- ")))!
            .replacingOccurrences(of: " ", with: "+")
        return #"{"Records": [{"eventVersion": "2.2", "eventSource": "ceph:s3", "eventName": "\#(name)", "s3": {"bucket": {"name": "\#(bucket)"}, "#
            + #""object": {"key": "\#(encoded)", "size": \#(size), "eTag": "\"0123\"", "sequencer": "\#(sequencer)"}}}]}"#
    }

    static let downloads = #"""
        {"version": 1, "graph": [{"op": "download"}, {"op": "decode"}, {"op": "thumbnail", "width": 96},
          {"op": "encode", "format": "jpeg", "Q": 80}, {"op": "write", "path": "{dir}/{name}.jpg"}]}
        """#

    @Test func notificationsAreAnsweredOnceTheirPhotoIsMade() throws {
        let server = try S3Server()
        let bucket = server.bucket("watched")
        try server.makeBucket(bucket)
        try server.put(Fixtures.samples.appendingPathComponent("Bridge.jpg"), bucket: bucket, key: "in/before.jpg")
        let folder = try Fixtures.temporaryDirectory("watch-bucket")
        let out = folder.appendingPathComponent("out")
        let preset = try Fixtures.writePreset(Self.downloads, in: folder)
        let watcher = try CLIProcess(["watch", preset, "s3://\(bucket)/in/", "--out", out.path, "--listen", "127.0.0.1:0"],
                                     environment: server.environment)
        waitUntil("the listener: \(watcher.stderrSoFar)") { watcher.stderrSoFar.contains("/metrics.") || watcher.stderrSoFar.contains("rror") }
        let port = try #require(watcher.stderrSoFar.firstMatch(of: /127\.0\.0\.1:(\d+)\//).flatMap { Int($0.1) }, "\(watcher.stderrSoFar)")

        // What was there before the watch started is made from the listing.
        waitUntil("before.jpg") { FileManager.default.fileExists(atPath: out.appendingPathComponent("before.jpg").path) }

        // A new object, with a space in its key: the answer comes once its output is there.
        try server.put(Fixtures.samples.appendingPathComponent("Wine.jpg"), bucket: bucket, key: "in/new one.jpg")
        let answer = try RawHTTP.send("POST", port: port, path: "/", body: Self.event("ObjectCreated:Put", bucket: bucket, key: "in/new one.jpg"),
                                      timeout: 120)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("new one.jpg").path))

        // The same event again (a retry, a duplicate): answered, and found up to date.
        let again = try RawHTTP.send("POST", port: port, path: "/", body: Self.event("s3:ObjectCreated:Put", bucket: bucket, key: "in/new one.jpg"),
                                     timeout: 120)
        #expect(again.status == 200)

        // Events of one object out of order: the older one, arriving last, is passed over.
        try server.put(Fixtures.samples.appendingPathComponent("seeding.jpg"), bucket: bucket, key: "in/order.jpg")
        let newer = try RawHTTP.send("POST", port: port, path: "/", body: Self.event("ObjectCreated:Put", bucket: bucket, key: "in/order.jpg",
                                                                                     sequencer: "00000000000000A5"), timeout: 120)
        #expect(newer.status == 200 && FileManager.default.fileExists(atPath: out.appendingPathComponent("order.jpg").path))
        let queued = { () throws -> Substring? in try RawHTTP.send(port: port, path: "/metrics").text.split(separator: "\n").first { $0.hasPrefix("workbench_watch_items_queued_total ") } }
        let before = try queued()
        let older = try RawHTTP.send("POST", port: port, path: "/", body: Self.event("ObjectCreated:Put", bucket: bucket, key: "in/order.jpg",
                                                                                     sequencer: "3B"), timeout: 120)
        #expect(older.status == 200)
        #expect(try queued() == before, "the older event made an item")

        // Outside the watched prefix: answered and ignored.
        let outside = try RawHTTP.send("POST", port: port, path: "/", body: Self.event("ObjectCreated:Put", bucket: bucket, key: "elsewhere/x.jpg"))
        #expect(outside.status == 200)

        // Not a notification, and too large.
        let wrong = try RawHTTP.send("POST", port: port, path: "/", body: #"{"hello": 1}"#)
        #expect(wrong.status == 400 && wrong.text.contains("Records"), "\(wrong.text)")
        let huge = try RawHTTP.send("POST", port: port, path: "/", body: String(repeating: " ", count: (1 << 20) + 10))
        #expect(huge.status == 413, "\(huge.status) \(huge.text)")

        // An SNS subscription is confirmed by fetching its URL: here the watch's own health.
        let confirm = try RawHTTP.send("POST", port: port, path: "/sns", body:
            #"{"Type": "SubscriptionConfirmation", "SubscribeURL": "http://127.0.0.1:\#(port)/healthz", "Token": "t"}"#, timeout: 60)
        #expect(confirm.status == 200, "\(confirm.text)")
        let refused = try RawHTTP.send("POST", port: port, path: "/sns", body:
            #"{"Type": "SubscriptionConfirmation", "SubscribeURL": "http://127.0.0.1:\#(port)/nothing", "Token": "t"}"#, timeout: 60)
        #expect(refused.status == 502 && refused.text.contains("404"), "\(refused.text)")
        // A notification inside an SNS envelope.
        try server.put(Fixtures.samples.appendingPathComponent("sunset.jpg"), bucket: bucket, key: "in/sns.jpg")
        let inner = Self.event("ObjectCreated:Put", bucket: bucket, key: "in/sns.jpg")
        let envelope = try String(decoding: JSONSerialization.data(withJSONObject: ["Type": "Notification", "Message": inner]), as: UTF8.self)
        let wrapped = try RawHTTP.send("POST", port: port, path: "/sns", body: envelope, timeout: 120)
        #expect(wrapped.status == 200, "\(wrapped.text)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("sns.jpg").path))

        let metrics = try RawHTTP.send(port: port, path: "/metrics").text
        #expect(metrics.contains("workbench_watch_events_received_total 5") && metrics.contains("workbench_watch_events_ignored_total 1"), "\(metrics)")
        kill(watcher.processIdentifier, SIGTERM)
        let result = watcher.wait(watchdog: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.lines.contains { $0.hasPrefix("FAILED") }, "\(result.lines)")
        #expect(result.stderr.contains("Confirmed the SNS subscription"), "\(result.stderr)")
    }

    /// Outputs in a bucket too: a removed object's thumbnail is deleted with `--prune`.
    @Test func aRemovedObjectsOutputsArePrunedFromTheOutputBucket() throws {
        let server = try S3Server()
        let bucket = server.bucket("pruned")
        try server.makeBucket(bucket)
        let folder = try Fixtures.temporaryDirectory("watch-bucket-prune")
        let preset = try Fixtures.writePreset(Self.downloads, in: folder)
        let watcher = try CLIProcess(["watch", preset, "s3://\(bucket)/in/", "--out", "s3://\(bucket)/thumbs/", "--listen", "127.0.0.1:0", "--prune"],
                                     environment: server.environment)
        waitUntil("the listener: \(watcher.stderrSoFar)") { watcher.stderrSoFar.contains("/metrics.") || watcher.stderrSoFar.contains("rror") }
        let port = try #require(watcher.stderrSoFar.firstMatch(of: /127\.0\.0\.1:(\d+)\//).flatMap { Int($0.1) }, "\(watcher.stderrSoFar)")
        try server.put(Fixtures.samples.appendingPathComponent("Bridge.jpg"), bucket: bucket, key: "in/gone.jpg")
        let made = try RawHTTP.send("POST", port: port, path: "/", body: Self.event("ObjectCreated:Put", bucket: bucket, key: "in/gone.jpg"), timeout: 120)
        #expect(made.status == 200)
        #expect(try server.keys(bucket, prefix: "thumbs/")["thumbs/gone.jpg"] != nil)
        try server.command(["cmd": "delete", "bucket": bucket, "key": "in/gone.jpg"])
        let removed = try RawHTTP.send("POST", port: port, path: "/", body: Self.event("ObjectRemoved:Delete", bucket: bucket, key: "in/gone.jpg",
                                                                                       sequencer: "0000000000000002"), timeout: 120)
        #expect(removed.status == 200)
        #expect(try server.keys(bucket, prefix: "thumbs/")["thumbs/gone.jpg"] == nil)
        kill(watcher.processIdentifier, SIGTERM)
        let result = watcher.wait(watchdog: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains("pruned  gone.jpg: removed gone.jpg"), "\(result.lines)")
    }

    @Test func aBucketWithoutAListenerOrWritingIntoItselfIsRefused() throws {
        let folder = try Fixtures.temporaryDirectory("watch-bucket-refusals")
        let preset = try Fixtures.writePreset(WatchCommandTests.thumbnails, in: folder)
        let noListener = try CLIProcess.run(["watch", preset, "s3://photos/in/", "--out", folder.path])
        #expect(noListener.status == 2 && noListener.stderr.contains("give --listen"), "\(noListener.stderr)")
        let loop = try CLIProcess.run(["watch", preset, "s3://photos/in/", "--out", "s3://photos/in/thumbs/", "--listen", "127.0.0.1:0"])
        #expect(loop.status == 2 && loop.stderr.contains("inside the watched prefix"), "\(loop.stderr)")
    }
}

/// The same against Ceph's RADOS Gateway, started by the tests on 127.0.0.1, its topics pushing
/// to the watch: a plain topic (pushed before the PUT answers) and a persistent one (a queue in
/// the gateway; its first event waits for the gateway's scan for new queues, up to 30 s).
/// One at a time: the gateway keeps a tenant's topics in one object, and two topics made at
/// once can lose one (then the notification naming it is refused, NoSuchKey).
@Suite(.serialized) struct WatchCephTests {
    @Test(arguments: [false, true])
    func cephsNotificationsMakeEachPhotoAndPruneDeletions(persistent: Bool) throws {
        let server = try S3Server(ceph: true)
        let bucket = server.bucket("watched")
        try server.makeBucket(bucket)
        let folder = try Fixtures.temporaryDirectory("watch-ceph")
        let out = folder.appendingPathComponent("out")
        let preset = try Fixtures.writePreset(WatchBucketTests.downloads, in: folder)
        // The prefix lists nothing yet: the watch starts empty.
        try server.put(Fixtures.samples.appendingPathComponent("Bridge.jpg"), bucket: bucket, key: "in/first.jpg")
        let watcher = try CLIProcess(["watch", preset, "s3://\(bucket)/in/", "--out", out.path, "--listen", "127.0.0.1:0", "--prune"],
                                     environment: server.environment)
        let limit = ContinuousClock.now + .seconds(180)
        func waitFor(_ what: String, _ condition: () -> Bool) {
            while !condition() {
                guard ContinuousClock.now < limit else { Issue.record("waited for \(what): \(watcher.stderrSoFar)"); return }
                usleep(20_000)
            }
        }
        waitFor("the listener") { watcher.stderrSoFar.contains("/metrics.") || watcher.stderrSoFar.contains("rror") }
        let port = try #require(watcher.stderrSoFar.firstMatch(of: /127\.0\.0\.1:(\d+)\//).flatMap { Int($0.1) }, "\(watcher.stderrSoFar)")
        waitFor("first.jpg, from the listing") { FileManager.default.fileExists(atPath: out.appendingPathComponent("first.jpg").path) }
        try server.command(["cmd": "notify", "bucket": bucket, "prefix": "in/", "topic": "watch-\(bucket)", "persistent": persistent,
                            "endpoint": "http://127.0.0.1:\(port)/"])
        try server.put(Fixtures.samples.appendingPathComponent("Wine.jpg"), bucket: bucket, key: "in/2026/second.jpg")
        waitFor("second.jpg, from the notification") { FileManager.default.fileExists(atPath: out.appendingPathComponent("2026/second.jpg").path) }
        try server.command(["cmd": "delete", "bucket": bucket, "key": "in/first.jpg"])
        waitFor("first.jpg to be pruned") { !FileManager.default.fileExists(atPath: out.appendingPathComponent("first.jpg").path) }
        kill(watcher.processIdentifier, SIGTERM)
        let result = watcher.wait(watchdog: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.hasPrefix("ok      second → 2026/second.jpg") }, "\(result.lines)")
        #expect(result.lines.contains("pruned  first.jpg: removed first.jpg"), "\(result.lines)")
    }
}
