import Foundation
import Testing
import WorkbenchTestSupport

/// Runs whose inputs are in a bucket: the real CLI against a real S3 server (moto, signatures
/// checked) on 127.0.0.1, with its requests counted and faults injected by the server's proxy.
@Suite struct BucketRunTests {
    /// The sample photos uploaded under `in/` (two of them one folder down) and a preset that
    /// makes a thumbnail of each.
    static func project(_ label: String, server: S3Server) throws -> (folder: URL, preset: String, keys: [String]) {
        let folder = try Fixtures.temporaryDirectory(label)
        let photos = server.bucket("photos")
        try server.makeBucket(photos)
        var keys: [String] = []
        for (i, photo) in Fixtures.samplePhotos.enumerated() {
            let key = "in/" + (i < 2 ? "deeper/" : "") + photo.lastPathComponent
            try server.put(photo, bucket: photos, key: key)
            keys.append(key)
        }
        try server.put(Fixtures.samples.appendingPathComponent("ATTRIBUTION.md"), bucket: photos, key: "in/ATTRIBUTION.md")
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "s3": "s3://\(photos)/in/", "glob": "**/*.jpg" }, "output": "out",
              "graph": [ { "id": "fetch", "op": "download" }, { "id": "image", "op": "decode" },
                         { "id": "small", "op": "thumbnail", "width": 64 },
                         { "id": "jpeg", "op": "encode", "format": "jpeg", "Q": 80 },
                         { "id": "save", "op": "write", "path": "{dir}/{name}.jpg" } ] }
            """, in: folder)
        try server.resetCounts()
        return (folder, preset, keys)
    }

    /// On moto and on Ceph's RADOS Gateway.
    @Test(arguments: [false, true])
    func runsOverABucketAndAnUnchangedRerunAsksForNothing(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let (folder, preset, keys) = try Self.project("bucket-run", server: server)
        let first = try CLIProcess.run(["run", preset], environment: server.environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("\(keys.count) items: \(keys.count) succeeded"), "\(first.stdout)")
        let written = Fixtures.files(in: folder.appendingPathComponent("out")).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(written == keys.map { String($0.dropFirst(3)) }.sorted())
        #expect(try server.requests() == ["LIST": 1, "GET object": keys.count])

        try server.resetCounts()
        let second = try CLIProcess.run(["run", preset], environment: server.environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stdout.contains("\(keys.count) items: \(keys.count) up to date"), "\(second.stdout)")
        #expect(try server.requests() == ["LIST": 1], "an up-to-date item was fetched")

        // One object replaced: that one alone is fetched and made again.
        try server.put(Fixtures.samplePhotos[0], bucket: server.bucket("photos"), key: keys[3])
        try server.resetCounts()
        let third = try CLIProcess.run(["run", preset], environment: server.environment)
        #expect(third.stdout.contains("1 succeeded") && third.stdout.contains("\(keys.count - 1) up to date"), "\(third.stdout)")
        #expect(try server.requests() == ["LIST": 1, "GET object": 1])
    }

    /// Keys are names, byte for byte: "#", "?", "%", "+", spaces and letters beyond ASCII name
    /// the items and their files, in a folder and in a bucket, and no two of them collide
    /// (before, "dup#1" and "dup#2" were both "dup" and one failed). moto's signature check
    /// refuses even boto3's uploads of keys with "%", "+" or letters beyond ASCII: those go to
    /// Ceph only.
    @Test(arguments: [false, true])
    func keysWithURLCharactersNameTheirFilesExactly(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let photos = server.bucket("photos")
        let folder = try Fixtures.temporaryDirectory("bucket-keys")
        try server.makeBucket(photos)
        let names = ["hash#tag", "dup#1", "dup#2", "what?", "a b", "a_b", "x#y?z"]
            + (ceph ? ["a%20b", "per%20cent", "plus+sign", "café", "100%"] : [])
        for name in names { try server.put(Fixtures.samplePhotos[0], bucket: photos, key: "in/\(name).jpg") }
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "s3": "s3://\(photos)/in/" }, "output": "out",
              "graph": [ { "id": "fetch", "op": "download" }, { "id": "image", "op": "decode" },
                         { "id": "small", "op": "thumbnail", "width": 32 },
                         { "id": "jpeg", "op": "encode", "format": "jpeg" },
                         { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder)
        let local = try CLIProcess.run(["run", preset], environment: server.environment)
        #expect(local.status == 0, "\(local.stdout)\(local.stderr)")
        #expect(Fixtures.files(in: folder.appendingPathComponent("out")).sorted() == names.map { "\($0).jpg" }.sorted())
        let bucket = try CLIProcess.run(["run", preset, "--out", "s3://\(photos)/out/"], environment: server.environment)
        #expect(bucket.status == 0, "\(bucket.stdout)\(bucket.stderr)")
        #expect(try server.keys(photos, prefix: "out/").keys.filter { $0.hasSuffix(".jpg") }.sorted() == names.map { "out/\($0).jpg" }.sorted())
        // An unchanged rerun fetches no input and puts no file.
        try server.resetCounts()
        let again = try CLIProcess.run(["run", preset, "--out", "s3://\(photos)/out/"], environment: server.environment)
        #expect(again.stdout.contains("\(names.count) items: \(names.count) up to date"), "\(again.stdout)")
        let requests = try server.requests()
        #expect(requests["GET object"] == 1 && requests["PUT object"] == 1, "\(requests)")  // the manifest's segment; the lease
    }

    @Test(arguments: [false, true])
    func slowDownAndResetsAreRetriedAndAMissingObjectFailsAlone(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let photos = server.bucket("photos")
        let (folder, preset, keys) = try Self.project("bucket-faults", server: server)
        try server.command(["cmd": "fault", "kind": "GET object", "status": 503, "code": "SlowDown", "count": 2, "retryAfter": 0])
        try server.command(["cmd": "fault", "kind": "GET object", "reset": true, "count": 1])
        try server.command(["cmd": "fault", "kind": "LIST", "status": 500, "code": "InternalError", "count": 1])
        let run = try CLIProcess.run(["run", preset, "s3://\(photos)/" + keys[2], "s3://\(photos)/in/gone.jpg"], environment: server.environment)
        // Command-line inputs replace the preset's: one object there, one missing.
        #expect(run.status == 1)
        #expect(run.stdout.contains("2 items: 1 succeeded, 1 failed"), "\(run.stdout)")
        #expect(run.stdout.contains("s3://\(photos)/in/gone.jpg: GetObject failed (404 NoSuchKey"), "\(run.stdout)")
        let requests = try server.requests()
        // Two SlowDowns and a cut body before the object came; the missing key asked once.
        #expect(requests["GET object"] == 5, "\(requests)")
        _ = folder

        try server.resetCounts()
        try server.command(["cmd": "fault", "kind": "LIST", "status": 500, "code": "InternalError", "count": 2])
        let listed = try CLIProcess.run(["run", preset], environment: server.environment)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(try server.requests()["LIST"] == 3)
    }

    @Test(arguments: [false, true])
    func wrongCredentialsAndAMissingBucketStopTheRunAtTheStart(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let (folder, preset, _) = try Self.project("bucket-refused", server: server)
        var wrong = server.environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-1234"
        let refused = try CLIProcess.run(["run", preset], environment: wrong)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("SignatureDoesNotMatch") && refused.stderr.contains("check AWS_SECRET_ACCESS_KEY"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("wrong-secret-1234") && !refused.stdout.contains("wrong-secret-1234"))

        var unknown = server.environment
        unknown["AWS_ACCESS_KEY_ID"] = "AKIAUNKNOWN"
        let unknownKey = try CLIProcess.run(["run", preset], environment: unknown)
        #expect(unknownKey.status == 2 && unknownKey.stderr.contains("InvalidAccessKeyId"), "\(unknownKey.stderr)")

        var none = server.environment
        none["AWS_ACCESS_KEY_ID"] = ""
        none["AWS_SECRET_ACCESS_KEY"] = ""
        none["AWS_SHARED_CREDENTIALS_FILE"] = folder.appendingPathComponent("no-such-file").path
        none["AWS_CONFIG_FILE"] = folder.appendingPathComponent("no-such-file").path
        let noCredentials = try CLIProcess.run(["run", preset], environment: none)
        #expect(noCredentials.status == 2 && noCredentials.stderr.contains("no credentials found"), "\(noCredentials.stderr)")

        let missing = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "s3": "s3://no-such-bucket/in/" }, "output": "out2",
              "graph": [ { "id": "fetch", "op": "download" }, { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder, name: "missing.json")
        let noBucket = try CLIProcess.run(["run", missing], environment: server.environment)
        #expect(noBucket.status == 2 && noBucket.stderr.contains("the bucket s3://no-such-bucket does not exist"), "\(noBucket.stderr)")
        #expect(try server.requests()["GET object"] == nil)
    }

    /// A token signed by an OpenID Connect issuer the test starts (`oidc_issuer.py`); Ceph checks
    /// its signature against the issuer's published certificate and its role's trust policy,
    /// moto takes any token.
    @Test(arguments: [false, true])
    func aPodsWebIdentityTokenIsExchangedForTemporaryCredentials(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph, sts: true)
        let (folder, preset, keys) = try Self.project("bucket-web-identity", server: server)
        let token = folder.appendingPathComponent("token")
        let signed = try server.command(["cmd": "token"])["token"] as? String ?? ""
        try signed.write(to: token, atomically: true, encoding: .utf8)
        var pod = server.environment
        pod["AWS_ACCESS_KEY_ID"] = ""
        pod["AWS_SECRET_ACCESS_KEY"] = ""
        pod["AWS_WEB_IDENTITY_TOKEN_FILE"] = token.path
        pod["AWS_ROLE_ARN"] = server.role
        pod["AWS_ENDPOINT_URL_STS"] = server.endpoint
        let run = try CLIProcess.run(["run", preset], environment: pod)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\(keys.count) items: \(keys.count) succeeded"), "\(run.stdout)")
        #expect(try server.requests()["STS"] == 1)

        if ceph {
            // With STS on the gateway a wrong secret gets a bare AccessDenied: the message says
            // the keys may be at fault too.
            var wrong = server.environment
            wrong["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-1234"
            let denied = try CLIProcess.run(["run", preset], environment: wrong)
            #expect(denied.status == 2 && denied.stderr.contains("403 AccessDenied") && denied.stderr.contains("and the keys themselves"),
                    "\(denied.status) \(denied.stderr)")
            // A token whose signature is not the issuer's: refused before any item, exit 2.
            let forged = signed.split(separator: ".").prefix(2).joined(separator: ".") + ".bm90LXRoZS1zaWduYXR1cmU"
            try forged.write(to: token, atomically: true, encoding: .utf8)
            let refused = try CLIProcess.run(["run", preset], environment: pod)
            #expect(refused.status == 2 && refused.stderr.contains("refused to assume role") && refused.stderr.contains("(HTTP 403, AccessDenied)"), "\(refused.status) \(refused.stderr)")
        }
        pod["AWS_WEB_IDENTITY_TOKEN_FILE"] = folder.appendingPathComponent("missing-token").path
        let missing = try CLIProcess.run(["run", preset], environment: pod)
        #expect(missing.status == 2 && missing.stderr.contains("cannot read the web identity token file"), "\(missing.stderr)")
    }

    @Test(arguments: [false, true])
    func aSlowListingPageDoesNotStallDownloadsThatEndMeanwhile(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let photos = server.bucket("photos")
        let folder = try Fixtures.temporaryDirectory("bucket-slow-page")
        try server.makeBucket(photos)
        try server.command(["cmd": "putmany", "bucket": photos, "prefix": "in/p", "count": 1_200, "file": Fixtures.samplePhotos[0].path])
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "s3": "s3://\(photos)/in/" }, "output": "out",
              "graph": [ { "id": "fetch", "op": "download" }, { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder)
        // The second page is held by the server: the run hands out the first page's items and
        // waits for it, while their downloads end. Those used to wait for the same lock on the
        // thread that had to bring the page: once it came, the run stalled for good.
        try server.command(["cmd": "fault", "kind": "LIST", "hold": true, "skip": 1, "count": 1])
        let run = try CLIProcess(["run", preset, "-q"], environment: server.environment)
        // Events, not a clock: the page held, then the first page's downloads all answered (a
        // busy gateway may answer a GET with SlowDown and the run try it again: at least 1,000).
        try server.waitUntilHeld()
        let answered = try server.command(["cmd": "waitanswered", "kind": "GET object", "count": 1_000])["answered"] as? Int ?? 0
        #expect(answered >= 1_000, "\(answered) downloads answered while the page was held")
        try server.command(["cmd": "release"])
        // A stall is a hang: the watchdog only stops one, it never decides a slow run.
        let result = run.wait(watchdog: 600)
        #expect(result.status == 0 && Fixtures.files(in: folder.appendingPathComponent("out")).count == 1_200, "\(result.stdout) \(result.stderr)")
    }
}
