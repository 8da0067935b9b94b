import Foundation
import Testing
import WorkbenchTestSupport

/// More than one run writing into one bucket prefix at once, with the real CLI against real S3
/// servers (moto, and Ceph's RADOS Gateway) on 127.0.0.1: no run's rewrite of the manifest drops
/// what another run recorded meanwhile.
@Suite struct BucketWritersTests {
    /// Preset A rewrites the manifest (its log mostly stale lines after its recipe changed
    /// twice, so compacted into the next generation) while preset B, started after A read the manifest, records its own items:
    /// B's records survive A's rewrite. Before, readers took the newest generation only, and
    /// B's rerun made all its files again.
    @Test(arguments: [false, true])
    func aRewriteWhileAnotherPresetRecordsLosesNothing(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site")
        let folder = try Fixtures.temporaryDirectory("bucket-two-writers")
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for (name, photo) in zip(["p1", "p2", "p3"], Fixtures.samplePhotos) {
            try FileManager.default.copyItem(at: photo, to: photos.appendingPathComponent(name + ".jpg"))
        }
        try server.makeBucket(site)
        func preset(_ name: String, width: Int = 32) throws -> String {
            try Fixtures.writePreset("""
                { "version": 1, "inputs": { "glob": "photos/*.jpg" }, "output": "s3://\(site)/shared/",
                  "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                             { "id": "small", "op": "thumbnail", "width": \(width) }, { "id": "jpeg", "op": "encode", "format": "jpeg" },
                             { "id": "save", "op": "write", "path": "\(name)/{name}.jpg" } ] }
                """, in: folder, name: name + ".json")
        }
        // Two runs of A with different widths leave a log of six lines, three of them stale:
        // A's next change compacts it.
        for width in [32, 40] {
            #expect(try CLIProcess.run(["run", preset("a", width: width)], environment: server.environment).status == 0)
        }
        let a = try preset("a", width: 48), b = try preset("b")
        // A's third run: its lease and three files go up; its rewrite (from the fifth PUT) is held.
        try server.command(["cmd": "fault", "kind": "PUT object", "hold": true, "skip": 4, "count": 1])
        let rewriting = try CLIProcess(["run", a], environment: server.environment)
        try server.waitUntilHeld()
        // B starts after A read the manifest, and records its three items while A's rewrite waits.
        let second = try CLIProcess.run(["run", b], environment: server.environment)
        #expect(second.status == 0 && second.stdout.contains("3 items: 3 succeeded"), "\(second.stdout) \(second.stderr)")
        try server.command(["cmd": "release"])
        let first = rewriting.wait()
        #expect(first.status == 0, "\(first.stderr)")
        let segments = try server.keys(site, prefix: "shared/workbench-manifest/main/").keys
        #expect(segments.contains { $0.contains("/g00001-") }, "A did not rewrite: \(segments.sorted())")

        // Every record of both presets is read back, and neither preset's rerun makes anything.
        let shown = try CLIProcess.run(["manifest", "show", "s3://\(site)/shared/"], environment: server.environment)
        for name in ["a/p1.jpg", "a/p2.jpg", "a/p3.jpg", "b/p1.jpg", "b/p2.jpg", "b/p3.jpg"] {
            #expect(shown.stdout.contains("\"\(name)\""), "\(name) missing: \(shown.stdout)")
        }
        for preset in [b, a] {
            try server.resetCounts()
            let rerun = try CLIProcess.run(["run", preset], environment: server.environment)
            #expect(rerun.stdout.contains("3 items: 3 up to date"), "\(rerun.stdout)")
            #expect(try server.requests()["PUT object"] == 1)  // the run's lease alone
        }
    }
}
