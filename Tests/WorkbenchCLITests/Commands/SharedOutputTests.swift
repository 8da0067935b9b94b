import Foundation
import Testing
import WorkbenchTestSupport

/// Several presets writing into one output folder: each keeps its own records in the manifest,
/// and one writing over another's file is said.
@Suite struct SharedOutputTests {
    /// Two presets over the same photos into `out/`: JPEG files and WebP files.
    private static func project(_ label: String, secondPath: String = "{name}-b.webp") throws -> (folder: URL, a: String, b: String) {
        let (folder, _) = try IncrementalRunTests.project(label)
        let a = try Fixtures.writePreset("""
            {"version": 1, "inputs": {"glob": "photos/*.jpg"}, "output": "out",
             "graph": [{"op": "read"}, {"op": "decode"}, {"op": "thumbnail", "width": 120},
                       {"op": "encode", "format": "jpeg"}, {"op": "write", "path": "{name}-a.jpg"}]}
            """, in: folder, name: "a.json")
        let b = try Fixtures.writePreset("""
            {"version": 1, "inputs": {"glob": "photos/*.jpg"}, "output": "out",
             "graph": [{"op": "read"}, {"op": "decode"}, {"op": "thumbnail", "width": 90},
                       {"op": "encode", "format": "\(secondPath.hasSuffix(".jpg") ? "jpeg" : "webp")"}, {"op": "write", "path": "\(secondPath)"}]}
            """, in: folder, name: "b.json")
        return (folder, a, b)
    }

    @Test func aThenBThenAThenBFindsEverythingUpToDate() throws {
        let (folder, a, b) = try Self.project("shared-abab")
        let out = folder.appendingPathComponent("out")
        for preset in [a, b] {
            let run = try CLIProcess.run(["run", preset])
            #expect(run.status == 0 && run.lines.last?.hasPrefix("6 items: 6 succeeded") == true, "\(run.lines) \(run.stderr)")
        }
        let stamps = IncrementalRunTests.stamps(out)
        #expect(stamps.count == 12)
        for preset in [a, b] {
            let rerun = try CLIProcess.run(["run", preset])
            #expect(rerun.lines.last?.hasPrefix("6 items: 6 up to date; nothing written") == true, "\(rerun.lines)")
        }
        #expect(IncrementalRunTests.stamps(out) == stamps)
        // One record per preset and input, each naming its preset from the output folder.
        let manifest = try IncrementalRunTests.manifest(out).document
        let items = manifest["items"] as? [[String: Any]] ?? []
        #expect(manifest["manifestVersion"] as? Int == 2)
        #expect(items.count == 12 && Set(items.compactMap { $0["preset"] as? String }) == ["../a.json", "../b.json"], "\(items.prefix(2))")
    }

    @Test func aFileWrittenOverByAnotherPresetIsSaidAndRedone() throws {
        let (folder, a, b) = try Self.project("shared-clash", secondPath: "{name}-a.jpg")
        #expect(try CLIProcess.run(["run", a]).status == 0)
        let over = try CLIProcess.run(["run", b])
        #expect(over.status == 0)
        let warned = over.lines.filter { $0.contains("write: overwrote ") && $0.contains(" of another preset, ../a.json (path from the output folder), which will make it again") }
        #expect(warned.count == 6, "\(over.lines)")
        // A's files are B's now: A makes them again (and says so in turn), and is then up to date.
        let again = try CLIProcess.run(["run", a])
        #expect(again.lines.last?.hasPrefix("6 items: 6 succeeded") == true, "\(again.lines)")
        #expect(again.lines.filter { $0.contains("of another preset, ../b.json (path from the output folder)") }.count == 6)
        #expect(try CLIProcess.run(["run", a]).lines.last?.hasPrefix("6 items: 6 up to date") == true)
        _ = folder
    }

    /// A manifest written before presets were named (version 1) still spares the rerun.
    @Test func aVersionOneManifestIsStillRead() throws {
        let (folder, a, _) = try Self.project("shared-legacy")
        #expect(try CLIProcess.run(["run", a]).status == 0)
        let out = folder.appendingPathComponent("out")
        var text = try IncrementalRunTests.manifest(out).text
        text = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("\"preset\"") }.joined(separator: "\n")
            .replacingOccurrences(of: "\"manifestVersion\" : 2", with: "\"manifestVersion\" : 1")
        try text.write(to: out.appendingPathComponent("workbench-manifest.json"), atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: out.appendingPathComponent("workbench-manifest.jsonl"))
        let rerun = try CLIProcess.run(["run", a])
        #expect(rerun.lines.last?.hasPrefix("6 items: 6 up to date") == true, "\(rerun.lines) \(rerun.stderr)")
        // Folded into the log, and the old file gone.
        #expect(Fixtures.files(in: out, includingManifest: true).filter(Fixtures.isManifest) == ["workbench-manifest.jsonl"])
        #expect(try CLIProcess.run(["run", a]).lines.last?.hasPrefix("6 items: 6 up to date") == true)
    }
}
