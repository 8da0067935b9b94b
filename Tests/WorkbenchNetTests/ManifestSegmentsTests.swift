import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchNet

/// The manifest's segments in a bucket with more than one writer: a rewrite folds only what it
/// read, and readers see every segment nobody folded — against real S3 servers (moto, and Ceph's RADOS Gateway).
@Suite struct ManifestSegmentsTests {
    static func text(_ file: String) -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }

    @Test(arguments: [false, true])
    func aSegmentPushedDuringAnotherRunsRewriteIsStillRead(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let site = server.bucket("site")
        try server.makeBucket(site)
        let client = S3Client(settings: S3Settings(environment: server.environment))
        let prefix = S3Location(bucket: site, key: "out/")
        let folders = try (0..<3).map { try Fixtures.temporaryDirectory("segments-\($0)").path }
        let log = { (folder: String) in folder + "/" + ManifestStore.fileName }
        // A starts (nothing there yet) and pushes its first lines.
        let a = ManifestSegments(client: client, prefix: prefix, part: "main")
        try a.pull(into: folders[0])
        try Data("a1\n".utf8).write(to: URL(fileURLWithPath: log(folders[0])))
        try a.push(log: log(folders[0]))
        // B starts after, reads A's lines and pushes its own.
        let b = ManifestSegments(client: client, prefix: prefix, part: "main")
        try b.pull(into: folders[1])
        #expect(Self.text(log(folders[1])) == "a1\n")
        try Data("a1\nb1\n".utf8).write(to: URL(fileURLWithPath: log(folders[1])))
        try b.push(log: log(folders[1]))
        // A rewrites its log as the next generation: it folds what it read and pushed, not B's.
        try Data("a1\na2\n".utf8).write(to: URL(fileURLWithPath: log(folders[0])))
        try a.replace(with: log(folders[0]))
        // A reader sees both.
        let reader = ManifestSegments(client: client, prefix: prefix, part: "main")
        try reader.pull(into: folders[2])
        #expect(Self.text(log(folders[2])) == "a1\na2\nb1\n")
        // A second rewrite (the reader's) folds everything: one generation left, nothing lost.
        try reader.replace(with: log(folders[2]))
        let segments = try server.keys(site, prefix: "out/workbench-manifest/main/").keys.filter { $0.hasSuffix(".jsonl") }
        #expect(segments.count == 1 && segments[0].contains("/g00002-"), "\(segments)")
        let last = try Fixtures.temporaryDirectory("segments-last").path
        try ManifestSegments(client: client, prefix: prefix, part: "main").pull(into: last)
        #expect(Self.text(log(last)) == "a1\na2\nb1\n")
    }
}
