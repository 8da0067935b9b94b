import Foundation
import Testing
import WorkbenchTestSupport

/// Runs that write into a bucket — files and manifest, no shared volume — against a real S3
/// server (moto, signatures checked) on 127.0.0.1, its requests counted.
@Suite struct BucketOutputTests {
    /// On moto and on Ceph's RADOS Gateway.
    @Test(arguments: [false, true])
    func filesAndManifestGoToTheBucketAndAnUnchangedRerunPutsNothing(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site")
        let (folder, preset, keys) = try BucketRunTests.project("bucket-out", server: server)
        try server.makeBucket(site)
        try server.resetCounts()
        let report = folder.appendingPathComponent("report.json"), events = folder.appendingPathComponent("events.jsonl")
        let trace = folder.appendingPathComponent("trace.json")
        let first = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/thumbs/", "--report", report.path, "--events", events.path,
                                        "--trace", trace.path, "--verbose"], environment: server.environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("\(keys.count) items: \(keys.count) succeeded"), "\(first.stdout)")
        #expect(first.stdout.contains("s3://\(site)/thumbs/"), "\(first.stdout)")
        let stored = try server.keys(site)
        let images = stored.keys.filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(images == keys.map { "thumbs/" + $0.dropFirst(3) }.sorted())
        let segments = stored.keys.filter { $0.hasPrefix("thumbs/workbench-manifest/main/g00000-000000-") }
        #expect(segments.count == 1 && stored.count == images.count + 1, "\(stored.keys.sorted())")
        var requests = try server.requests()
        // The files, the manifest's segment and the run's lease.
        #expect(requests["PUT object"] == keys.count + 2 && requests["GET object"] == keys.count, "\(requests)")

        // Nothing the run wrote or said holds the secret.
        var said = [first.stdout, first.stderr]
        for file in [report, events, trace] { said.append((try? String(contentsOf: file, encoding: .utf8)) ?? "") }
        for key in stored.keys {
            let object = try server.command(["cmd": "get", "bucket": site, "key": key])
            said.append(object["text"] as? String ?? "")
        }
        #expect(!said.contains { $0.contains(server.secret) })

        try server.resetCounts()
        let second = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/thumbs/"], environment: server.environment)
        #expect(second.stdout.contains("\(keys.count) items: \(keys.count) up to date"), "\(second.stdout)")
        requests = try server.requests()
        // One listing each of the inputs, the manifest and the outputs, the manifest's one
        // segment read, the run's lease put and deleted; nothing else.
        #expect(requests == ["LIST": 3, "GET object": 1, "PUT object": 1, "DELETE object": 1], "\(requests)")

        // A deleted output is gone, so it has changed: made again, alone.
        let gone = images[0]
        try server.command(["cmd": "delete", "bucket": site, "key": gone])
        try server.resetCounts()
        let third = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/thumbs/"], environment: server.environment)
        #expect(third.stdout.contains("1 succeeded") && third.stdout.contains("\(keys.count - 1) up to date"), "\(third.stdout)")
        #expect(try server.keys(site).keys.contains(gone))
        requests = try server.requests()
        #expect(requests["GET object"] == 2 && requests["LIST"] == 3, "\(requests)")  // the segment, and the one input
        // With --trust-manifest the outputs are not listed, and a deleted one stays deleted.
        try server.command(["cmd": "delete", "bucket": site, "key": gone])
        try server.resetCounts()
        let trusting = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/thumbs/", "--trust-manifest"], environment: server.environment)
        #expect(trusting.stdout.contains("\(keys.count) items: \(keys.count) up to date"), "\(trusting.stdout)")
        #expect(try server.requests() == ["LIST": 2, "GET object": 1, "PUT object": 1, "DELETE object": 1])
        #expect(try !server.keys(site).keys.contains(gone))

        let shown = try CLIProcess.run(["manifest", "show", "s3://\(site)/thumbs/"], environment: server.environment)
        #expect(shown.status == 0 && shown.stdout.contains("\"s3://\(server.bucket("photos"))/in/deeper/"), "\(shown.stderr)")
        // A wrong secret is the same mistake for `manifest` as for `run`: exit 2.
        var wrong = server.environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let refused = try CLIProcess.run(["manifest", "show", "s3://\(site)/thumbs/"], environment: wrong)
        #expect(refused.status == 2, "\(refused.status) \(refused.stderr)")
        #expect(try CLIProcess.run(["manifest", "merge", "s3://\(site)/thumbs/"], environment: wrong).status == 2)
    }

    @Test(arguments: [false, true])
    func shardsOnABucketMergeToWhatOneRunMakes(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site")
        let (_, preset, keys) = try BucketRunTests.project("bucket-shards", server: server)
        try server.makeBucket(site)
        #expect(try CLIProcess.run(["run", preset, "--out", "s3://\(site)/single/"], environment: server.environment).status == 0)
        for shard in 0..<3 {
            let run = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/shared/", "--shard", "\(shard)/3", "-q"], environment: server.environment)
            #expect(run.status == 0, "\(run.stderr)")
        }
        let parts = Set(try server.keys(site, prefix: "shared/workbench-manifest/").keys.map { String($0.split(separator: "/")[2]) })
        // Which shard takes an item follows a hash of its URL, bucket name included: on Ceph the
        // bucket's name is new each time, and a shard may get none of the six.
        let all: Set<String> = ["shard-0-of-3", "shard-1-of-3", "shard-2-of-3"]
        if ceph { #expect(!parts.isEmpty && parts.isSubset(of: all), "\(parts)") } else { #expect(parts == all) }
        let merge = try CLIProcess.run(["manifest", "merge", "s3://\(site)/shared/"], environment: server.environment)
        #expect(merge.status == 0 && merge.stdout.contains("\(keys.count) inputs"), "\(merge.stdout) \(merge.stderr)")
        // One segment, and the record of what it folded.
        let after = try server.keys(site, prefix: "shared/workbench-manifest/").keys
        #expect(after.count == 2 && after.allSatisfy { $0.contains("/main/g00001-") }, "\(after)")

        let single = try CLIProcess.run(["manifest", "show", "s3://\(site)/single/"], environment: server.environment).stdout
        let shared = try CLIProcess.run(["manifest", "show", "s3://\(site)/shared/"], environment: server.environment).stdout
        #expect(!single.isEmpty && single == shared)
        let images = { (prefix: String) in try server.keys(site, prefix: prefix).filter { $0.key.hasSuffix(".jpg") }
            .map { "\($0.key.dropFirst(prefix.count)) \($0.value)" }.sorted() }
        #expect(try images("single/") == images("shared/"))
        #expect(try CLIProcess.run(["run", preset, "--out", "s3://\(site)/shared/"], environment: server.environment)
                .stdout.contains("\(keys.count) items: \(keys.count) up to date"))
    }

    /// `manifest merge` while a shard still runs would fold part of its work and leave the rest
    /// to nobody: it is refused, saying which shard, until the shard has ended.
    @Test(arguments: [false, true])
    func mergeWaitsForShardsThatStillRun(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site")
        let (_, preset, _) = try BucketRunTests.project("bucket-merge-live", server: server)
        try server.makeBucket(site)
        // The first download of either shard is held: that shard is running while merge is asked
        // for. (Which shard takes an item follows a hash of its URL; one of two may take none.)
        try server.command(["cmd": "fault", "kind": "GET object", "hold": true, "count": 1])
        let shards = try (0..<2).map { try CLIProcess(["run", preset, "--out", "s3://\(site)/live/", "--shard", "\($0)/2", "-q"], environment: server.environment) }
        try server.waitUntilHeld()
        let early = try CLIProcess.run(["manifest", "merge", "s3://\(site)/live/"], environment: server.environment)
        #expect(early.status == 2 && early.stderr.contains("Not merged: shard-") && early.stderr.contains("of-2 (its lease renewed"),
                "\(early.status) \(early.stderr)")
        try server.command(["cmd": "release"])
        for shard in shards { #expect(shard.wait().status == 0) }
        let merged = try CLIProcess.run(["manifest", "merge", "s3://\(site)/live/"], environment: server.environment)
        #expect(merged.status == 0, "\(merged.stdout) \(merged.stderr)")
    }

    @Test(arguments: [false, true])
    func aBucketThatCannotBeWrittenStopsTheRunAtTheStart(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let (_, preset, _) = try BucketRunTests.project("bucket-out-missing", server: server)
        let run = try CLIProcess.run(["run", preset, "--out", "s3://nowhere/x/"], environment: server.environment)
        #expect(run.status == 2 && run.stderr.contains("the bucket s3://nowhere does not exist"), "\(run.stderr)")
        #expect(try server.requests()["GET object"] == nil)
    }

    /// A preset that makes of `input` a 4800×3000 uncompressed TIFF, about 43 MB: a multipart upload.
    static func bigTIFF(of input: String, in folder: URL) throws -> String {
        try Fixtures.writePreset("""
            { "version": 1, "inputs": { "s3": "\(input)" },
              "graph": [ { "id": "fetch", "op": "download" }, { "id": "image", "op": "decode" },
                         { "id": "big", "op": "vips.resize", "scale": 10 },
                         { "id": "tiff", "op": "encode", "format": "tiff" },
                         { "id": "save", "op": "write", "path": "{name}.tif" } ] }
            """, in: folder, name: "big.json")
    }

    @Test(arguments: [false, true])
    func ctrlCAbortsAnUploadInFlight(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site"), photos = server.bucket("photos")
        let (folder, _, keys) = try BucketRunTests.project("bucket-interrupted", server: server)
        try server.makeBucket(site)
        let preset = try Self.bigTIFF(of: "s3://\(photos)/\(keys[0])", in: folder)
        // Its parts are held by the server: the upload is in flight when Ctrl-C comes.
        try server.command(["cmd": "fault", "kind": "PUT part", "hold": true, "count": 20])
        let run = try CLIProcess(["run", preset, "--out", "s3://\(site)/big/"], environment: server.environment)
        try server.waitUntilHeld()
        run.interrupt()
        let result = run.wait()
        try server.command(["cmd": "release"])
        #expect(result.status == 130, "\(result.stdout) \(result.stderr)")
        let requests = try server.requests()
        #expect(requests["CREATE upload"] == 1 && requests["ABORT upload"] == 1 && requests["COMPLETE upload"] == nil, "\(requests)")
        #expect((try server.command(["cmd": "uploads", "bucket": site])["uploads"] as? [String]) == [])
        #expect(try server.keys(site, prefix: "big/").keys.filter { $0.hasSuffix(".tif") }.isEmpty)
    }

    /// An upload whose run was killed is found by the next run over the prefix and aborted;
    /// two Ctrl-Cs in a row, the second ending the process at once, leave no upload either.
    @Test(arguments: [false, true])
    func uploadsOfKilledRunsAreAbortedByTheNextRun(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site"), photos = server.bucket("photos")
        let (folder, _, keys) = try BucketRunTests.project("bucket-orphans", server: server)
        try server.makeBucket(site)
        let preset = try Self.bigTIFF(of: "s3://\(photos)/\(keys[0])", in: folder)
        func uploads() throws -> [String] { (try server.command(["cmd": "uploads", "bucket": site])["uploads"] as? [String]) ?? [] }
        // Killed while its parts are held: the upload stays, as S3 keeps it.
        try server.command(["cmd": "fault", "kind": "PUT part", "hold": true, "count": 20])
        let killed = try CLIProcess(["run", preset, "--out", "s3://\(site)/big/"], environment: server.environment)
        try server.waitUntilHeld()
        kill(killed.processIdentifier, SIGKILL)
        _ = killed.wait()
        try server.command(["cmd": "release"])
        #expect(try uploads().count == 1)
        // The next run aborts it (its run is gone) and makes the file.
        try server.resetCounts()
        let rerun = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/big/"], environment: server.environment)
        #expect(rerun.status == 0, "\(rerun.stdout) \(rerun.stderr)")
        #expect(try server.requests()["ABORT upload"] == 1)
        #expect(rerun.stderr.contains("Aborted 1 unfinished upload that an interrupted run left in s3://\(site)/big/."), "\(rerun.stderr)")
        #expect(try uploads().isEmpty)
        #expect(try server.keys(site, prefix: "big/").keys.contains { $0.hasSuffix(".tif") })
        #expect(try server.keys(site, prefix: "big/workbench-manifest/.runs/").isEmpty)

        // Two Ctrl-Cs: the first cancels the upload, and the server holds the abort it sends; the
        // second ends the process at once, which aborts the upload itself before it exits.
        try server.resetCounts()
        try server.command(["cmd": "fault", "kind": "PUT part", "hold": true, "count": 1])
        try server.command(["cmd": "fault", "kind": "ABORT upload", "hold": true, "count": 1])
        let again = try CLIProcess(["run", preset, "--out", "s3://\(site)/big/", "--force"], environment: server.environment)
        try server.waitUntilHeld(1)  // a part
        again.interrupt()
        try server.waitUntilHeld(2)  // and the first Ctrl-C's abort
        again.interrupt()
        let ended = again.wait()
        #expect(ended.status == 130, "\(ended.status) \(ended.stderr)")
        #expect(try uploads().isEmpty)  // the first abort still held: the second Ctrl-C's did it
        #expect(try server.keys(site, prefix: "big/workbench-manifest/.runs/").isEmpty)  // nor a lease left
        try server.command(["cmd": "release"])

        // Killed after asking for the upload, before its answer came: S3 made it, the run never
        // learnt its id. Its intent leads the next run to it.
        try server.resetCounts()
        try server.command(["cmd": "fault", "kind": "CREATE upload", "hold": true, "count": 1])
        let early = try CLIProcess(["run", preset, "--out", "s3://\(site)/big/", "--force"], environment: server.environment)
        try server.waitUntilHeld()
        kill(early.processIdentifier, SIGKILL)
        _ = early.wait()
        try server.command(["cmd": "release"])
        try server.command(["cmd": "waitanswered", "kind": "CREATE upload", "count": 1])
        #expect(try uploads().count == 1)
        try server.resetCounts()
        let after = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/big/", "--force"], environment: server.environment)
        #expect(after.status == 0, "\(after.stdout) \(after.stderr)")
        #expect(try server.requests()["ABORT upload"] == 1)
        #expect(after.stderr.contains("Aborted 1 unfinished upload"), "\(after.stderr)")
        #expect(try uploads().isEmpty)
        #expect(try server.keys(site, prefix: "big/workbench-manifest/.runs/").isEmpty)
    }

    /// The output prefix's listing is read a page at a time as the run reaches it: outputs that
    /// sort before 2,500 other objects need its first page alone; outputs after them read every
    /// page and are still found; a page that cannot be fetched makes the outputs past it again.
    @Test(arguments: [false, true])
    func theOutputListingIsReadAsTheRunReachesIt(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site")
        let folder = try Fixtures.temporaryDirectory("bucket-listing-pages")
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for (name, photo) in zip(["a", "b", "c"], Fixtures.samplePhotos) {
            try FileManager.default.copyItem(at: photo, to: photos.appendingPathComponent(name + ".jpg"))
        }
        try server.makeBucket(site)
        try server.command(["cmd": "putmany", "bucket": site, "prefix": "out/m/p", "count": 2_500, "file": Fixtures.samplePhotos[0].path])
        func preset(_ path: String) throws -> String {
            try Fixtures.writePreset("""
                { "version": 1, "inputs": { "glob": "photos/*.jpg" },
                  "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                             { "id": "small", "op": "thumbnail", "width": 32 }, { "id": "jpeg", "op": "encode", "format": "jpeg" },
                             { "id": "save", "op": "write", "path": "\(path)" } ] }
                """, in: folder, name: path.replacingOccurrences(of: "/", with: "-") + ".json")
        }
        // Before the 2,500 objects: the manifest's listing and the outputs' first page, which
        // they do not reach into (so the page after it is never asked for).
        let early = try preset("{name}.jpg")
        try server.resetCounts()
        var run = try CLIProcess.run(["run", early, "--out", "s3://\(site)/out/"], environment: server.environment)
        #expect(run.stdout.contains("3 items: 3 succeeded"), "\(run.stdout) \(run.stderr)")
        var requests = try server.requests()
        #expect(requests["LIST"] == 2, "\(requests)")

        // After them: all three pages, and what they list counts.
        let late = try preset("z/{name}.jpg")
        run = try CLIProcess.run(["run", late, "--out", "s3://\(site)/out/"], environment: server.environment)
        #expect(run.stdout.contains("3 items: 3 succeeded"), "\(run.stdout) \(run.stderr)")
        try server.command(["cmd": "delete", "bucket": site, "key": "out/z/b.jpg"])
        try server.resetCounts()
        run = try CLIProcess.run(["run", late, "--out", "s3://\(site)/out/"], environment: server.environment)
        #expect(run.stdout.contains("3 items: 1 succeeded, 2 up to date"), "\(run.stdout) \(run.stderr)")
        requests = try server.requests()
        #expect(requests["LIST"] == 4, "\(requests)")
        #expect(try server.keys(site, prefix: "out/z/").count == 3)

        // The second page refused (every retry): the outputs past the first page are made
        // again, and the run says why.
        try server.resetCounts()
        try server.command(["cmd": "fault", "kind": "LIST", "status": 500, "code": "InternalError", "skip": 2, "count": 5])
        run = try CLIProcess.run(["run", late, "--out", "s3://\(site)/out/"], environment: server.environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("3 items: 3 succeeded"), "\(run.stdout)")
        #expect(run.stderr.contains("The listing of s3://\(site)/out/ stopped part way") && run.stderr.contains("500 InternalError") && run.stderr.contains("made again"), "\(run.stderr)")
    }

    @Test(arguments: [false, true])
    func uploadsAreRetriedAndThePresetNamesTheEndpoint(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site"), photos = server.bucket("photos")
        let (folder, _, keys) = try BucketRunTests.project("bucket-out-faults", server: server)
        try server.makeBucket(site)
        // The endpoint from the preset, not the environment.
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "s3": "s3://\(photos)/in/", "glob": "**/*.jpg" }, "output": "s3://\(site)/faults/",
              "s3": { "endpoint": "\(server.endpoint)", "region": "us-east-1" },
              "graph": [ { "id": "fetch", "op": "download" }, { "id": "image", "op": "decode" },
                         { "id": "small", "op": "thumbnail", "width": 32 }, { "id": "jpeg", "op": "encode", "format": "jpeg" },
                         { "id": "save", "op": "write", "path": "{name}.jpg", "cacheControl": "max-age=5", "metadata": { "batch": "b7" } } ] }
            """, in: folder, name: "faults.json")
        try server.command(["cmd": "fault", "kind": "PUT object", "status": 503, "code": "SlowDown", "count": 2])
        try server.command(["cmd": "fault", "kind": "PUT object", "reset": true, "count": 1])
        var environment = server.environment
        environment["AWS_ENDPOINT_URL_S3"] = ""
        let run = try CLIProcess.run(["run", preset], environment: environment)
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("\(keys.count) items: \(keys.count) succeeded"), "\(run.stdout)")
        let requests = try server.requests()
        #expect(requests["PUT object"] == keys.count + 1 + 3 + 1, "\(requests)")  // + the lease
        let stored = try server.keys(site, prefix: "faults/").filter { $0.key.hasSuffix(".jpg") }
        #expect(stored.count == keys.count && stored.values.allSatisfy { $0 > 100 })
        let head = try server.command(["cmd": "head", "bucket": site, "key": stored.keys.sorted()[0]])
        #expect(head["ContentType"] as? String == "image/jpeg" && head["CacheControl"] as? String == "max-age=5")
        #expect((head["Metadata"] as? [String: String]) == ["batch": "b7"])
    }

    @Test(arguments: [false, true])
    func aKilledRunLosesAtMostTheItemsAfterItsLastSegment(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site"), photos = server.bucket("photos")
        let folder = try Fixtures.temporaryDirectory("bucket-killed")
        try server.makeBucket(photos)
        try server.makeBucket(site)
        try server.command(["cmd": "putmany", "bucket": photos, "prefix": "in/p", "count": 1_050, "file": Fixtures.samplePhotos[0].path])
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "s3": "s3://\(photos)/in/" },
              "graph": [ { "id": "fetch", "op": "download" }, { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder)
        // The server holds every object after the first 1,010: the run records its first
        // segment (at 1,000 items, or 10 s if slower) and cannot finish before it is killed.
        try server.command(["cmd": "fault", "kind": "GET object", "hold": true, "skip": 1_010, "count": 1_000])
        let run = try CLIProcess(["run", preset, "--out", "s3://\(site)/out/"], environment: server.environment)
        // The manifest's segments (its folder also holds the runs' leases).
        func segmentKeys() throws -> [String] {
            try server.keys(site, prefix: "out/workbench-manifest/").keys.filter { !$0.contains("/.runs/") }.sorted()
        }
        // The event, not a clock: killed once the first segment is in the bucket.
        try server.command(["cmd": "waitput", "bucket": site, "prefix": "out/workbench-manifest/", "except": "/.runs/"])
        kill(run.processIdentifier, SIGKILL)
        _ = run.wait()
        try server.command(["cmd": "release"])
        let segments = try segmentKeys()
        var recorded = 0
        for segment in segments {
            let text = try server.command(["cmd": "get", "bucket": site, "key": segment])["text"] as? String ?? ""
            recorded += text.split(separator: "\n").filter { !$0.hasPrefix("{\"manifestLog\"") }.count
        }
        #expect(!segments.isEmpty && recorded >= 1 && recorded <= 1_010, "\(segments): \(recorded) recorded")

        try server.resetCounts()
        let rerun = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/out/"], environment: server.environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("1050 items: \(1_050 - recorded) succeeded, \(recorded) up to date"), "\(rerun.stdout.suffix(300))")
        // The recorded items were not fetched again; the segments were read back.
        #expect(try server.requests()["GET object"] == 1_050 - recorded + segments.count)
    }

    @Test(arguments: [false, true])
    func aBucketOutputHasManyUploadsInFlightUnlessThePresetSaysOtherwise(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site"), photos = server.bucket("photos")
        let folder = try Fixtures.temporaryDirectory("bucket-in-flight")
        try server.makeBucket(photos)
        try server.makeBucket(site)
        try server.command(["cmd": "putmany", "bucket": photos, "prefix": "in/p", "count": 24, "file": Fixtures.samplePhotos[0].path])
        let graph = """
            "graph": [ { "id": "fetch", "op": "download" }, { "id": "image", "op": "decode" },
                       { "id": "small", "op": "thumbnail", "width": 32 }, { "id": "jpeg", "op": "encode", "format": "jpeg" },
                       { "id": "save", "op": "write", "path": "{name}.jpg" } ]
            """
        let plain = try Fixtures.writePreset(#"{ "version": 1, "inputs": { "s3": "s3://\#(photos)/in/" }, "# + graph + " }", in: folder)
        let own = try Fixtures.writePreset(#"{ "version": 1, "inputs": { "s3": "s3://\#(photos)/in/" }, "queues": { "disk": { "concurrency": 2 } }, "#
                                           + graph + " }", in: folder, name: "own.json")
        // Slow uploads: how many are under way at once shows the queue's concurrency.
        for (preset, prefix) in [(plain, "a"), (own, "b")] {
            try server.resetCounts()
            try server.command(["cmd": "fault", "kind": "PUT object", "delay": 0.5, "count": 24])
            let run = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/\(prefix)/"], environment: server.environment)
            #expect(run.status == 0, "\(run.stderr)")
            let most = try server.command(["cmd": "most"])["PUT object"] as? Int ?? 0
            if preset == plain { #expect(most > 2, "\(most) uploads at once") } else { #expect(most == 2, "\(most) uploads at once") }
        }
    }
}
