import Foundation
import Testing
import WorkbenchTestSupport

/// Batches spread over processes (as on a Kubernetes Indexed Job or a Slurm array): shards of
/// one run over one shared output folder, merged, against a single run.
@Suite struct ShardTests {
    /// Photos copied `copies` times into `photos/`, and the two-format preset of the incremental tests.
    static func project(_ label: String, copies: Int) throws -> (folder: URL, preset: String) {
        let (folder, preset) = try IncrementalRunTests.project(label)
        let photos = folder.appendingPathComponent("photos")
        for copy in 1..<copies {
            for photo in Fixtures.samplePhotos {
                try FileManager.default.copyItem(at: photo, to: photos.appendingPathComponent("\(copy)-\(photo.lastPathComponent)"))
            }
        }
        return (folder, preset)
    }

    @Test func threeShardsOverOneFolderMakeWhatOneRunMakesByteForByte() throws {
        let (folder, preset) = try Self.project("shards", copies: 3)
        let single = folder.appendingPathComponent("single"), shared = folder.appendingPathComponent("shared")
        #expect(try CLIProcess.run(["run", preset, "--out", single.path]).status == 0)

        let shards = try (0..<3).map { try CLIProcess(["run", preset, "--out", shared.path, "--shard", "\($0)/3", "-q"]) }
        var counts: [Int] = []
        for shard in shards {
            let result = shard.wait()
            #expect(result.status == 0, "\(result.stderr)")
            let summary = result.lines.last ?? ""
            counts.append(Int(summary.prefix { $0 != " " }) ?? 0)
            #expect(summary.contains("succeeded"), "\(summary)")
        }
        #expect(counts.reduce(0, +) == 18 && counts.allSatisfy { $0 < 18 }, "\(counts)")
        let parts = Fixtures.files(in: shared, includingManifest: true).filter { $0.hasPrefix("workbench-manifest.shard-") }
        #expect(parts == ["workbench-manifest.shard-0-of-3.jsonl", "workbench-manifest.shard-1-of-3.jsonl", "workbench-manifest.shard-2-of-3.jsonl"])

        let merge = try CLIProcess.run(["manifest", "merge", shared.path])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(merge.stdout.contains("Merged 3 parts into \(shared.path)/workbench-manifest.jsonl: 18 inputs."), "\(merge.stdout)")
        let files = Fixtures.files(in: single, includingManifest: true)
        #expect(Fixtures.files(in: shared, includingManifest: true) == files)
        #expect(files.count == 37)
        // The same work says the same manifest (its log's lines are in the order items finished).
        #expect(try IncrementalRunTests.manifest(shared).text == IncrementalRunTests.manifest(single).text)
        for file in files where !Fixtures.isManifest(file) {
            #expect(FileManager.default.contents(atPath: shared.appendingPathComponent(file).path)
                    == FileManager.default.contents(atPath: single.appendingPathComponent(file).path), "\(file) differs")
        }
        // Now one run over the folder finds everything up to date.
        #expect(try CLIProcess.run(["run", preset, "--out", shared.path]).stdout.contains("18 items: 18 up to date"))
    }

    @Test func aKilledShardsRerunCompletesOnlyItsItems() throws {
        let (folder, _) = try Self.project("shard-killed", copies: 8)
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "photos/*.jpg" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "blur", "op": "vips.gaussblur", "sigma": 4 }, { "id": "jpeg", "op": "encode", "format": "jpeg" },
                         { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder, name: "slow.json")
        let out = folder.appendingPathComponent("out")
        let planned = try CLIProcess.run(["run", preset, "--out", out.path, "--shard", "1/3", "--dry-run"])
        let mine = Set(planned.lines.compactMap { $0.components(separatedBy: "  →  ").dropFirst().first })
        #expect(mine.count > 5 && mine.count < 48, "\(planned.stdout)")

        let run = try CLIProcess(["run", preset, "--out", out.path, "--shard", "1/3", "--jobs", "1"])
        let deadline = Date().addingTimeInterval(300)  // only a hang waits this long
        while Date() < deadline && IncrementalRunTests.stamps(out).count < 3 { usleep(50_000) }
        kill(run.processIdentifier, SIGKILL)
        _ = run.wait()
        let before = IncrementalRunTests.stamps(out)
        #expect(before.count >= 3 && before.count < mine.count)

        let rerun = try CLIProcess.run(["run", preset, "--out", out.path, "--shard", "1/3"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(Set(Fixtures.files(in: out)) == mine)
        let after = IncrementalRunTests.stamps(out)
        let kept = before.filter { after[$0.key] == $0.value }.count
        #expect(kept >= before.count - 2)
        #expect(rerun.stdout.contains("\(mine.count) items: \(mine.count - kept) succeeded, \(kept) up to date"), "\(rerun.stdout)")
    }

    @Test func presetsThatGatherEveryItemAreShardedOnlyWithSheetsOfTheirOwn() throws {
        let preset = Fixtures.presets.appendingPathComponent("watermark-sheet.json").path
        let out = try Fixtures.temporaryDirectory("shard-sheet")
        let refused = try CLIProcess.run(["run", preset, "--out", out.path, "--shard", "0/2"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--shard 0/2: \"sheet\" gathers every item into one result"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--per-shard-sheets"))

        let own = try CLIProcess.run(["run", preset, "--out", out.path, "--shard", "0/2", "--per-shard-sheets"])
        #expect(own.status == 0, "\(own.stderr)")
        #expect(Fixtures.files(in: out).contains("contact-sheet.shard-0-of-2.jpg"))

        let auto = try CLIProcess.run(["run", preset, "--out", out.path, "--shard", "auto/2"])
        #expect(auto.status == 2)
        #expect(auto.stderr.contains("none of JOB_COMPLETION_INDEX"), "\(auto.stderr)")
    }
}
