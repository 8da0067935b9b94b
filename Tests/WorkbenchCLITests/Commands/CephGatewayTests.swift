import Foundation
import Testing
import WorkbenchTestSupport

/// Buckets on a real S3 server that is not moto: Ceph's RADOS Gateway (one node, memstore) on
/// 127.0.0.1, behind the tests' counting proxy. Each test has buckets of its own (the cluster is
/// shared by the process).
@Suite(.serialized) struct CephGatewayTests {
    static func bucket(_ label: String) -> String { "\(label)-\(UInt32.random(in: 0...UInt32.max))" }

    static func preset(inputs: String, in folder: URL, graph: String = """
        { "id": "fetch", "op": "download" }, { "id": "image", "op": "decode" },
        { "id": "small", "op": "thumbnail", "width": 32 }, { "id": "jpeg", "op": "encode", "format": "jpeg" },
        { "id": "save", "op": "write", "path": "{name}.jpg" }
        """) throws -> String {
        try Fixtures.writePreset(#"{ "version": 1, "inputs": { "s3": "\#(inputs)" }, "output": "out", "graph": [ \#(graph) ] }"#, in: folder)
    }

    /// "#", "?", "%", "+", spaces and letters beyond ASCII name items and files byte for byte
    /// (moto's signature check refuses some of these keys; Ceph takes them as S3 does).
    @Test func everyKeyNamesItsFileExactly() throws {
        let server = try S3Server(ceph: true)
        let photos = Self.bucket("keys")
        try server.makeBucket(photos)
        let names = ["hash#tag", "dup#1", "dup#2", "what?", "a b", "a%20b", "per%20cent", "plus+sign", "café", "100%"]
        for name in names { try server.put(Fixtures.samplePhotos[0], bucket: photos, key: "in/\(name).jpg") }
        let folder = try Fixtures.temporaryDirectory("ceph-keys")
        let preset = try Self.preset(inputs: "s3://\(photos)/in/", in: folder)
        let local = try CLIProcess.run(["run", preset], environment: server.environment)
        #expect(local.status == 0, "\(local.stdout)\(local.stderr)")
        #expect(Fixtures.files(in: folder.appendingPathComponent("out")).sorted() == names.map { "\($0).jpg" }.sorted())
        let bucket = try CLIProcess.run(["run", preset, "--out", "s3://\(photos)/out/"], environment: server.environment)
        #expect(bucket.status == 0, "\(bucket.stdout)\(bucket.stderr)")
        #expect(try server.keys(photos, prefix: "out/").keys.filter { $0.hasSuffix(".jpg") }.sorted() == names.map { "out/\($0).jpg" }.sorted())
        // An unchanged rerun fetches nothing and puts no file.
        try server.resetCounts()
        let again = try CLIProcess.run(["run", preset, "--out", "s3://\(photos)/out/"], environment: server.environment)
        #expect(again.stdout.contains("\(names.count) items: \(names.count) up to date"), "\(again.stdout)")
        let requests = try server.requests()
        #expect(requests["GET object"] == 1 && requests["PUT object"] == 1, "\(requests)")  // the manifest's segment; the lease
    }

    /// A deleted output is made again; an upload a killed run left is aborted by the next run.
    @Test func goneOutputsAreMadeAgainAndOrphanedUploadsAborted() throws {
        let server = try S3Server(ceph: true)
        let photos = Self.bucket("orphans")
        try server.makeBucket(photos)
        try server.put(Fixtures.samplePhotos[0], bucket: photos, key: "in/Bridge.jpg")
        let folder = try Fixtures.temporaryDirectory("ceph-orphans")
        let small = try Self.preset(inputs: "s3://\(photos)/in/", in: folder)
        #expect(try CLIProcess.run(["run", small, "--out", "s3://\(photos)/small/"], environment: server.environment).status == 0)
        try server.command(["cmd": "delete", "bucket": photos, "key": "small/Bridge.jpg"])
        let remade = try CLIProcess.run(["run", small, "--out", "s3://\(photos)/small/"], environment: server.environment)
        #expect(remade.stdout.contains("1 succeeded"), "\(remade.stdout)")
        #expect(try server.keys(photos, prefix: "small/").keys.contains("small/Bridge.jpg"))

        // A multipart upload, its parts held by the proxy, the run killed.
        let big = try BucketOutputTests.bigTIFF(of: "s3://\(photos)/in/", in: folder)
        try server.command(["cmd": "fault", "kind": "PUT part", "hold": true, "count": 20])
        let killed = try CLIProcess(["run", big, "--out", "s3://\(photos)/big/"], environment: server.environment)
        try server.waitUntilHeld()
        kill(killed.processIdentifier, SIGKILL)
        _ = killed.wait()
        try server.command(["cmd": "release"])
        func uploads() throws -> [String] { (try server.command(["cmd": "uploads", "bucket": photos])["uploads"] as? [String]) ?? [] }
        #expect(try uploads().count == 1)
        try server.resetCounts()  // and the faults left
        let rerun = try CLIProcess.run(["run", big, "--out", "s3://\(photos)/big/"], environment: server.environment)
        #expect(rerun.status == 0, "\(rerun.stdout) \(rerun.stderr)")
        #expect(try uploads().isEmpty)
        #expect(try server.keys(photos, prefix: "big/").keys.contains("big/Bridge.tif"))
    }
}
