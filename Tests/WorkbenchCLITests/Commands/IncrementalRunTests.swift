import Foundation
import Testing
import WorkbenchTestSupport

/// Reruns redo only what changed: real runs of the CLI over real photos, twice or more into
/// the same folder, checked against the files' bytes and their inodes and times on disk.
@Suite struct IncrementalRunTests {
    /// Six photos copied into `photos/` and a preset with two sizes × two formats per photo,
    /// each format its own branch (so one encoder's parameter touches half the files).
    static func project(_ label: String) throws -> (folder: URL, preset: String) {
        let folder = try Fixtures.temporaryDirectory(label)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for photo in Fixtures.samplePhotos {
            try FileManager.default.copyItem(at: photo, to: photos.appendingPathComponent(photo.lastPathComponent))
        }
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "photos/*.jpg" }, "output": "out",
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "small", "op": "thumbnail", "width": 200 },
                         { "id": "jpeg", "op": "encode", "format": "jpeg", "Q": 80 },
                         { "id": "saveJpeg", "op": "write", "path": "{name}.jpg" },
                         { "id": "webp", "op": "encode", "from": "small", "format": "webp", "Q": 70 },
                         { "id": "saveWebp", "op": "write", "path": "{name}.webp" } ] }
            """, in: folder)
        return (folder, preset)
    }

    /// Inode and modification time of every image under `folder`: a file rewritten (renamed
    /// over) gets a new inode.
    static func stamps(_ folder: URL) -> [String: String] {
        var stamps: [String: String] = [:]
        for file in Fixtures.files(in: folder) where file.hasSuffix(".jpg") || file.hasSuffix(".webp") {
            var info = stat()
            guard stat(folder.appendingPathComponent(file).path, &info) == 0 else { continue }
            stamps[file] = "\(info.st_ino):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
        return stamps
    }

    static func report(_ path: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any] ?? [:]
    }

    /// The manifest of an output folder as `workbench manifest show` prints it.
    static func manifest(_ out: URL) throws -> (text: String, document: [String: Any]) {
        let shown = try CLIProcess.run(["manifest", "show", out.path])
        let document = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any] ?? [:]
        return (shown.stdout, document)
    }

    /// Item name → status, from a report.
    static func statuses(_ report: [String: Any]) -> [String: String] {
        let items = report["items"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: items.map { ($0["name"] as? String ?? "", $0["status"] as? String ?? "") })
    }

    @Test func theSameRecipeGivesTheSameBytesAndASecondRunWritesNothing() throws {
        let (folder, preset) = try Self.project("incremental-same")
        let out = folder.appendingPathComponent("out")
        let first = try CLIProcess.run(["run", preset])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("6 items: 6 succeeded"))
        // Each item names its files in the preset's order, whichever encoder finished first.
        let okLines = first.lines.filter { $0.hasPrefix("ok ") }
        #expect(okLines.count == 6 && okLines.allSatisfy { $0.range(of: #"\.jpg, [^ ]+\.webp \("#, options: .regularExpression) != nil }, "\(okLines)")
        let before = Self.stamps(out)
        #expect(before.count == 12)

        // Made again elsewhere from scratch: byte for byte the same files.
        let elsewhere = folder.appendingPathComponent("again")
        #expect(try CLIProcess.run(["run", preset, "--out", elsewhere.path]).status == 0)
        for file in before.keys.sorted() {
            #expect(FileManager.default.contents(atPath: out.appendingPathComponent(file).path)
                    == FileManager.default.contents(atPath: elsewhere.appendingPathComponent(file).path), "\(file) differs")
        }

        let reportPath = folder.appendingPathComponent("second.json")
        let second = try CLIProcess.run(["run", preset, "--report", reportPath.path])
        #expect(second.status == 0)
        #expect(second.stdout.contains("6 items: 6 up to date; nothing written"), "\(second.stdout)")
        #expect(Self.stamps(out) == before, "a file was rewritten")
        let report = try Self.report(reportPath)
        #expect(Set(Self.statuses(report).values) == ["upToDate"])
        let run = report["run"] as? [String: Any] ?? [:]
        #expect(run["upToDate"] as? Int == 6 && run["bytesWritten"] as? Int == 0)
        // The report still lists every file, as the manifest recorded it.
        let outputs = (report["items"] as? [[String: Any]] ?? []).flatMap { $0["outputs"] as? [[String: Any]] ?? [] }
        #expect(outputs.count == 12 && outputs.allSatisfy { $0["upToDate"] as? Bool == true && ($0["width"] as? Int ?? 0) > 0 })

        // The manifest says, for each input, what was made from it.
        let manifest = try Self.manifest(out).document
        let items = manifest["items"] as? [[String: Any]] ?? []
        #expect(items.count == 6)
        #expect(items.allSatisfy { ($0["input"] as? String ?? "").hasPrefix("photos/") && ($0["outputs"] as? [Any])?.count == 2 })
        let webp = items.flatMap { $0["outputs"] as? [[String: Any]] ?? [] }.first { ($0["path"] as? String ?? "").hasSuffix(".webp") }
        #expect(webp?["format"] as? String == "webp" && webp?["width"] as? Int == 200 && webp?["node"] as? String == "saveWebp")
    }

    /// The README's srcset, whose plan makes each size from the next larger one: once its files
    /// are made, a rerun with nothing changed reads and decodes no photo (counted by the report's
    /// ops, not timed). The planner's rewiring puts a resize's reader before it in file order.
    @Test func anUnchangedSrcsetRerunReadsNoInput() throws {
        let folder = try Fixtures.temporaryDirectory("incremental-srcset")
        let photos = folder.appendingPathComponent("samples")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for photo in Fixtures.samplePhotos {
            try FileManager.default.copyItem(at: photo, to: photos.appendingPathComponent(photo.lastPathComponent))
        }
        let preset = folder.appendingPathComponent("responsive-images.json")
        try FileManager.default.copyItem(at: Fixtures.presets.appendingPathComponent("responsive-images.json"), to: preset)
        #expect(try CLIProcess.run(["run", preset.path]).status == 0)
        let reportPath = folder.appendingPathComponent("rerun.json")
        let rerun = try CLIProcess.run(["run", preset.path, "--report", reportPath.path])
        #expect(rerun.status == 0 && rerun.stdout.contains("\(Fixtures.samplePhotos.count) up to date; run scope: 1 written"), "\(rerun.stdout)")
        // `read` runs only to compare the input's size and time with the manifest's; the run's
        // index is made again from the pictures' JSON as recorded (`pictures`, and its `write`).
        let report = try Self.report(reportPath)
        let ops = report["ops"] as? [[String: Any]] ?? []
        let ran = ops.compactMap { op in (op["count"] as? Int ?? 0) > 0 ? op["op"] as? String : nil }
        #expect(ran == ["pictures", "read", "write"], "an unchanged rerun ran \(ran)")
        let count = { (name: String) in ops.first { $0["op"] as? String == name }?["count"] as? Int }
        #expect(count("pictures") == 1 && count("write") == 1, "\(ops)")
        let items = report["items"] as? [[String: Any]] ?? []
        #expect(items.count == Fixtures.samplePhotos.count && items.allSatisfy { ($0["decodes"] as? [Any])?.isEmpty == true })
    }

    @Test func changingOneInputOrOneParameterRedoesExactlyWhatDependsOnIt() throws {
        let (folder, preset) = try Self.project("incremental-change")
        let out = folder.appendingPathComponent("out")
        #expect(try CLIProcess.run(["run", preset]).status == 0)
        let before = Self.stamps(out)

        // Touched without a change: hashed again, found the same, left alone.
        let photos = folder.appendingPathComponent("photos")
        let names = Fixtures.files(in: photos)
        let touched = photos.appendingPathComponent(names[0])
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: touched.path)
        let same = try CLIProcess.run(["run", preset])
        #expect(same.stdout.contains("6 up to date"), "\(same.stdout)")
        #expect(Self.stamps(out) == before)

        // One input's content changes: its two files, and only they, are made again.
        let changed = photos.appendingPathComponent(names[1])
        try FileManager.default.removeItem(at: changed)
        try FileManager.default.copyItem(at: photos.appendingPathComponent(names[2]), to: changed)
        let stem = (names[1] as NSString).deletingPathExtension
        let one = try CLIProcess.run(["run", preset])
        #expect(one.stdout.contains("6 items: 1 succeeded, 5 up to date"), "\(one.stdout)")
        let afterOne = Self.stamps(out)
        #expect(Set(before.keys.filter { afterOne[$0] != before[$0] }) == ["\(stem).jpg", "\(stem).webp"])

        // One encoder's parameter changes: every WebP is made again, no JPEG.
        let reportPath = folder.appendingPathComponent("report.json")
        let webp = try CLIProcess.run(["run", preset, "--set", "webp.Q=50", "--report", reportPath.path])
        #expect(webp.stdout.contains("6 items: 6 succeeded"), "\(webp.stdout)")
        let afterWebp = Self.stamps(out)
        #expect(Set(afterOne.keys.filter { afterWebp[$0] != afterOne[$0] }) == Set(afterOne.keys.filter { $0.hasSuffix(".webp") }))
        // The JPEG branch did not even run: no encode of it in the report's timings.
        let ops = (try Self.report(reportPath)["ops"] as? [[String: Any]] ?? []).map { ($0["op"] as? String ?? "", $0["count"] as? Int ?? 0) }
        #expect(ops.contains { $0 == ("encode", 6) }, "\(ops)")

        // --force redoes everything.
        let forced = try CLIProcess.run(["run", preset, "--set", "webp.Q=50", "--force"])
        #expect(forced.stdout.contains("6 items: 6 succeeded"))
        let afterForce = Self.stamps(out)
        #expect(afterWebp.keys.allSatisfy { afterForce[$0] != afterWebp[$0] })
    }

    @Test func aRerunRemovesNothingItDidNotWriteAndRedoesADeletedFile() throws {
        let (folder, preset) = try Self.project("incremental-keep")
        let out = folder.appendingPathComponent("out")
        #expect(try CLIProcess.run(["run", preset]).status == 0)
        try "mine".write(to: out.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let victim = Self.stamps(out).keys.sorted()[0]
        try FileManager.default.removeItem(at: out.appendingPathComponent(victim))

        // A deleted file is made again; so is one whose write now goes elsewhere, and the old one stays.
        let moved = try String(contentsOfFile: preset, encoding: .utf8).replacingOccurrences(of: "{name}.webp", with: "webp/{name}.webp")
        try moved.write(toFile: preset, atomically: true, encoding: .utf8)
        let rerun = try CLIProcess.run(["run", preset])
        #expect(rerun.status == 0)
        let files = Set(Fixtures.files(in: out))
        #expect(files.contains("notes.txt") && files.contains(victim))
        #expect(files.filter { $0.hasPrefix("webp/") }.count == 6 && files.filter { !$0.contains("/") && $0.hasSuffix(".webp") }.count == 6)
        #expect(rerun.stdout.contains("6 items: 6 succeeded"), "\(rerun.stdout)")
    }

    @Test func remoteImagesAreAskedForOnlyIfTheyChanged() throws {
        let folder = try Fixtures.temporaryDirectory("incremental-remote")
        let served = folder.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        let photos = Fixtures.samplePhotos.prefix(4)
        for photo in photos { try FileManager.default.copyItem(at: photo, to: served.appendingPathComponent(photo.lastPathComponent)) }
        let server = try TestServer(samplesDirectory: served)
        let names = photos.map(\.lastPathComponent)
        // Two by ETag, two by Last-Modified.
        var urls: [String: String] = [:]
        for (i, name) in names.enumerated() { urls["photo\(i)"] = server.url((i < 2 ? "tagged/" : "dated/") + name) }
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "map": \(String(decoding: try JSONSerialization.data(withJSONObject: urls), as: UTF8.self)) },
              "graph": [ { "id": "fetch", "op": "download" }, { "id": "image", "op": "decode" },
                         { "id": "small", "op": "thumbnail", "width": 100 }, { "id": "jpeg", "op": "encode", "format": "jpeg" },
                         { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder)
        let out = folder.appendingPathComponent("out")
        #expect(try CLIProcess.run(["run", preset, "--out", out.path]).status == 0)
        let before = Self.stamps(out)
        let second = try CLIProcess.run(["run", preset, "--out", out.path])
        #expect(second.stdout.contains("4 items: 4 up to date"), "\(second.stdout) \(second.stderr)")
        #expect(try server.requestCounts()["not-modified"] == 4)
        #expect(Self.stamps(out) == before)

        // The server's copy of one image changes (new content, new time): fetched whole and redone.
        let changed = served.appendingPathComponent(names[0])
        try FileManager.default.removeItem(at: changed)
        try FileManager.default.copyItem(at: Fixtures.samplePhotos[5], to: changed)
        let third = try CLIProcess.run(["run", preset, "--out", out.path])
        #expect(third.stdout.contains("4 items: 1 succeeded, 3 up to date"), "\(third.stdout)")
        #expect(try server.requestCounts()["not-modified"] == 7)
    }

    @Test func aDamagedManifestIsSaidAndRebuilt() throws {
        let (folder, preset) = try Self.project("incremental-damaged")
        let out = folder.appendingPathComponent("out")
        #expect(try CLIProcess.run(["run", preset]).status == 0)
        // Two records mangled in the log (as a disk or an editor might): those two are redone.
        let manifest = out.appendingPathComponent("workbench-manifest.jsonl")
        var lines = try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == 7 && lines[0] == "{\"manifestLog\":1}")
        lines[2] = "{\"k\":\"zz" + lines[2].dropFirst(8)
        lines[4] = String(lines[4].prefix(40))
        try (lines.joined(separator: "\n") + "\n").write(to: manifest, atomically: true, encoding: .utf8)
        let rerun = try CLIProcess.run(["run", preset])
        #expect(rerun.status == 0)
        #expect(rerun.stderr.contains("The manifest \"\(manifest.path)\" has 2 damaged lines (the first is line 3); their items will be redone"), "\(rerun.stderr)")
        #expect(rerun.stdout.contains("6 items: 2 succeeded, 4 up to date"), "\(rerun.stdout)")
        // Rewritten without them: the next run finds nothing wrong.
        let third = try CLIProcess.run(["run", preset])
        #expect(third.stdout.contains("6 up to date") && third.stderr.isEmpty, "\(third.stdout) \(third.stderr)")
        #expect(try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n").count == 7)

        // A manifest that is not a log at all is said, and its items redone.
        try "{ \"manifestVersion\": 1, \"items\": [] }\n".write(to: manifest, atomically: true, encoding: .utf8)
        let foreign = try CLIProcess.run(["run", preset])
        #expect(foreign.stderr.contains("is not a manifest log this workbench knows"), "\(foreign.stderr)")
        #expect(foreign.stdout.contains("6 items: 6 succeeded"), "\(foreign.stdout)")
        #expect(try CLIProcess.run(["run", preset]).stdout.contains("6 up to date"))
    }

    @Test func aRunKilledOutrightLeavesAJournalItsRerunUses() throws {
        let (folder, _) = try Self.project("incremental-killed")
        let photos = folder.appendingPathComponent("photos")
        // Enough slow work that a kill lands in the middle: 48 items, blurred at full size.
        for copy in 0..<7 {
            for photo in Fixtures.samplePhotos {
                try FileManager.default.copyItem(at: photo, to: photos.appendingPathComponent("\(copy)-\(photo.lastPathComponent)"))
            }
        }
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "photos/*.jpg" }, "output": "out",
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "blur", "op": "vips.gaussblur", "sigma": 4 }, { "id": "jpeg", "op": "encode", "format": "jpeg" },
                         { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder, name: "slow.json")
        let out = folder.appendingPathComponent("out")
        let run = try CLIProcess(["run", preset, "--jobs", "1"])
        let deadline = Date().addingTimeInterval(300)  // only a hang waits this long
        while Date() < deadline && Self.stamps(out).count < 5 { usleep(50_000) }
        kill(run.processIdentifier, SIGKILL)
        _ = run.wait()
        let done = Self.stamps(out)
        #expect(done.count >= 5 && done.count < 48, "\(done.count) files before the kill")
        // Each finished item is a line in the log already.
        let log = try String(contentsOf: out.appendingPathComponent("workbench-manifest.jsonl"), encoding: .utf8)
        #expect(log.split(separator: "\n").count >= done.count - 1, "\(done.count) files, log: \(log.prefix(200))")

        let rerun = try CLIProcess.run(["run", preset])
        #expect(rerun.status == 0)
        // Every file finished before the kill is left alone (an item killed between its file and
        // its journal line is simply made again).
        let after = Self.stamps(out)
        let kept = done.filter { after[$0.key] == $0.value }.count
        #expect(kept >= done.count - 2, "\(kept) of \(done.count) kept")
        #expect(rerun.stdout.contains("48 items: \(48 - kept) succeeded, \(kept) up to date"), "\(rerun.stdout)")
        #expect(try CLIProcess.run(["run", preset]).stdout.contains("48 items: 48 up to date"))
    }
}
