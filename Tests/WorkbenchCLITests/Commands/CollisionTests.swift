import Foundation
import Testing
import WorkbenchTestSupport

/// Two inputs that name one output file: the earlier input in the list keeps it, the later one
/// fails — on the first run and on every rerun, and across shards — so the file never depends on
/// which item happened to finish first.
@Suite struct CollisionTests {
    /// Every input to a 120 px JPEG named after it alone.
    static let graph = """
        "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                   { "id": "small", "op": "thumbnail", "width": 120 },
                   { "id": "jpeg", "op": "encode", "format": "jpeg", "Q": 80 },
                   { "id": "save", "op": "write", "path": "{name}.jpg" } ]
        """

    static func bytes(_ file: URL) throws -> Data { try Data(contentsOf: file) }

    @Test func aRerunReportsTheCollisionAgainAndNeverSwapsTheFile() throws {
        let folder = try Fixtures.temporaryDirectory("collision-rerun")
        let photos = Fixtures.samplePhotos
        // Sorted by name, "Bridge.JPG" comes before "Bridge.jpg".
        try FileManager.default.copyItem(at: photos[0], to: folder.appendingPathComponent("Bridge.JPG"))
        try FileManager.default.copyItem(at: photos[1], to: folder.appendingPathComponent("Bridge.jpg"))
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "*.{jpg,jpeg}" }, "output": "out",
            \(Self.graph) }
            """, in: folder)
        let out = folder.appendingPathComponent("out/Bridge.jpg")
        var sums: Set<Data> = []
        for run in 0..<3 {
            let result = try CLIProcess.run(["run", preset])
            #expect(result.status == 1, "run \(run): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("is also the output of item \"Bridge\" (Bridge.JPG), earlier in the input list"), "run \(run): \(result.stdout)")
            sums.insert(try Self.bytes(out))
        }
        #expect(sums.count == 1)
        // The file is the first input's: what a run over that input alone makes.
        let alone = try Fixtures.temporaryDirectory("collision-alone")
        try FileManager.default.copyItem(at: photos[0], to: alone.appendingPathComponent("Bridge.JPG"))
        let single = try Fixtures.writePreset(try String(contentsOfFile: preset, encoding: .utf8), in: alone)
        #expect(try CLIProcess.run(["run", single]).status == 0)
        #expect(sums.first == (try Self.bytes(alone.appendingPathComponent("out/Bridge.jpg"))))
    }

    @Test func shardsAgreeOnWhichItemKeepsAFile() throws {
        let folder = try Fixtures.temporaryDirectory("collision-shards")
        let photos = Fixtures.samplePhotos
        for (n, photo) in photos.prefix(6).enumerated() {
            let sub = folder.appendingPathComponent("d\(n)")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: photo, to: sub.appendingPathComponent("x.jpg"))
        }
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "d*/*.jpg" }, "output": "out",
            \(Self.graph) }
            """, in: folder)
        var succeeded = 0, failed = 0
        for shard in 0..<2 {
            let result = try CLIProcess.run(["run", preset, "--shard", "\(shard)/2"])
            // Both shards hold items of the six (else this test says nothing).
            #expect(result.stdout.contains("item"), "\(result.stdout)")
            succeeded += result.stdout.components(separatedBy: "\nok ").count - 1 + (result.stdout.hasPrefix("ok ") ? 1 : 0)
            failed += result.stdout.components(separatedBy: "FAILED ").count - 1
        }
        #expect(succeeded == 1 && failed == 5)
        // d0/x.jpg is first in the list: the file is its photo's.
        let alone = try Fixtures.temporaryDirectory("collision-shards-alone")
        try FileManager.default.createDirectory(at: alone.appendingPathComponent("d0"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: photos[0], to: alone.appendingPathComponent("d0/x.jpg"))
        let single = try Fixtures.writePreset(try String(contentsOfFile: preset, encoding: .utf8), in: alone)
        #expect(try CLIProcess.run(["run", single]).status == 0)
        #expect(try Self.bytes(folder.appendingPathComponent("out/x.jpg")) == (try Self.bytes(alone.appendingPathComponent("out/x.jpg"))))
    }
}
