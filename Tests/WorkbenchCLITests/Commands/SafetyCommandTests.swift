import Foundation
import Testing
import WorkbenchTestSupport

/// What the safety issue promised, seen from the command line: run-scope failures count,
/// systemic failures stop the run once, and nothing a preset says escapes its sandbox.
@Suite struct SafetyCommandTests {
    @Test func aFailedRunScopeChainFailsTheRun() throws {
        let folder = try Fixtures.temporaryDirectory("run-scope-fails")
        let preset = try Fixtures.writePreset(#"""
            {"version": 1, "graph": [
              {"id": "thumb-source", "op": "read"}, {"id": "thumb", "op": "decode"},
              {"id": "sheet-file", "op": "read", "scope": "run", "path": "sheet.png"},
              {"id": "sheet", "op": "decode", "scope": "run", "from": "sheet-file"},
              {"id": "sheet-jpeg", "op": "encode", "scope": "run", "format": "jpeg"},
              {"id": "sheet-save", "op": "write", "scope": "run", "path": "sheet.jpg"},
              {"id": "jpeg", "op": "encode", "format": "jpeg", "from": "thumb"}, {"id": "save", "op": "write", "path": "{name}.jpg"}]}
            """#, in: folder)
        // There when the preset is checked, but not an image: the run-scope chain fails at run time.
        let sheet = folder.appendingPathComponent("sheet.png")
        try Data("not an image".utf8).write(to: sheet)
        let out = folder.appendingPathComponent("out")
        let result = try CLIProcess.run(["run", preset, Fixtures.samples.appendingPathComponent("Bridge.jpg").path, "--out", out.path])
        #expect(result.status == 1, "\(result.stdout)")
        #expect(result.lines.contains { $0.hasPrefix("FAILED  sheet (run scope): ") }, "\(result.lines)")
        #expect(result.lines.contains("SKIPPED sheet-save (run scope): \"sheet\" failed"), "\(result.lines)")
        #expect(result.lines.last?.hasPrefix("1 item: 1 succeeded; run scope: 1 failed, 2 skipped; ") == true, "\(result.lines)")
        #expect(Fixtures.files(in: out) == ["Bridge.jpg"])
    }

    @Test func aWrittenContactSheetIsNamed() throws {
        let out = try Fixtures.temporaryDirectory("run-scope-ok")
        let result = try CLIProcess.run(["run", Fixtures.presets.appendingPathComponent("watermark-sheet.json").path, "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.hasPrefix("ok      sheet-save → contact-sheet.jpg (") && $0.hasSuffix(", run scope)") }, "\(result.lines)")
        #expect(result.lines.last?.hasPrefix("6 items: 6 succeeded; run scope: 1 written; ") == true, "\(result.lines)")
    }

    @Test func aPresetCannotRunAProgram() throws {
        let folder = try Fixtures.temporaryDirectory("no-programs")
        let preset = try Fixtures.writePreset(#"""
            {"version": 1, "graph": [{"id": "x", "op": "vips.system", "scope": "run", "cmd_format": "sh -c \"id > pwned.txt\""}]}
            """#, in: folder)
        for arguments in [["validate", preset], ["run", preset, "--allow-untrusted", "--out", folder.path]] {
            let result = try CLIProcess.run(arguments, in: folder)
            #expect(result.status == 2)
            #expect(result.stderr.contains("graph[0].op: \"vips.system\" cannot be used in a preset: it runs a program"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("pwned.txt").path))
    }
}

extension SafetyCommandTests {
    /// A 200 KiB disk holds a few thumbnails: the run stops at the first file that does not fit,
    /// says why once, and leaves only whole files.
    @Test func aFullDiskStopsTheRunOnce() throws {
        let disk = try Fixtures.temporaryDirectory("full-disk")
        let photos = Fixtures.samplePhotos.map(\.path)
        let out = disk.appendingPathComponent("out")
        let result = try CLIProcess.run(["run", Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path] + photos
                                        + ["--out", out.path, "--jobs", "1"],
                                        launcher: CLIProcess.smallDisk(at: disk, size: "150k"))
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        let failures = result.lines.filter { $0.hasPrefix("FAILED") }
        #expect(failures.count == 1, "\(result.lines)")
        #expect(failures.first?.contains("No space left on device. The run stopped") == true, "\(failures)")
        #expect(result.lines.last?.hasPrefix("Stopped, the output could not be written: ") == true, "\(result.lines)")
        // What is left on the disk: exactly the files reported written, no temporary file.
        let left = result.stderr.split(separator: "\n").filter { $0.hasPrefix("DISK: ") }.map { String($0.dropFirst(6)) }
            .filter { !Fixtures.isManifest(($0 as NSString).lastPathComponent) }.sorted()
        let written = result.lines.filter { $0.hasPrefix("ok ") }.compactMap { $0.split(separator: "→").last?.split(separator: " ").first }
            .map { "out/" + $0 }.sorted()
        #expect(written.count >= 2)
        #expect(left == written, "left \(left), reported \(written)")
    }

    @Test func aReadOnlyOutputIsRefusedBeforeAnyWork() throws {
        let disk = try Fixtures.temporaryDirectory("read-only")
        let out = disk.appendingPathComponent("out")
        let result = try CLIProcess.run(["run", Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path, "--out", out.path],
                                        launcher: CLIProcess.smallDisk(at: disk, size: "200k", readOnly: true, folders: ["out"]))
        #expect(result.status == 2)
        #expect(result.stderr.contains("Cannot use \"\(out.path)\" as the output folder: it cannot be written (Read-only file system). Choose another with --out."), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func temporaryFilesOfAKilledRunAreRemovedByTheNext() throws {
        let out = try Fixtures.temporaryDirectory("stale")
        // A process that has ended: its pid names the stale file, as a SIGKILLed run's would.
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        try FileManager.default.createDirectory(at: out.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let stale = out.appendingPathComponent("sub/.Bridge.jpg.\(finished.processIdentifier)-42.workbench-tmp")
        let live = out.appendingPathComponent(".Wine.jpg.\(getpid())-7.workbench-tmp")
        for file in [stale, live] { try Data(count: 1000).write(to: file) }
        let result = try CLIProcess.run(["run", Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path, "--out", out.path])
        #expect(result.status == 0)
        #expect(result.stderr.contains("Removed 1 unfinished file that an interrupted run left in"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        #expect(FileManager.default.fileExists(atPath: live.path), "a live process's temporary file was removed")
    }
}

extension SafetyCommandTests {
    /// The fuzz targets' seed corpora (and the findings kept there as regression cases) replay
    /// through the same checks the fuzzer runs, in the normal build.
    @Test func theFuzzCorporaReplayCleanly() throws {
        for (target, folder) in [("fuzz-presets", "presets"), ("fuzz-images", "images"), ("fuzz-graphs", "graphs")] {
            let corpus = Fixtures.packageRoot.appendingPathComponent("Fuzz/Corpus/\(folder)")
            let count = try FileManager.default.contentsOfDirectory(atPath: corpus.path).count
            let process = Process()
            process.executableURL = CLIProcess.executable.deletingLastPathComponent().appendingPathComponent(target)
            process.arguments = [corpus.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(target)")
            #expect(output == "ran \(count) inputs\n", "\(target): \(output)")
        }
    }
}

extension SafetyCommandTests {
    /// One photo alone gets libvips' threads to itself, where a failed tile can go unreported by
    /// a statistic: the check for damage runs on one thread, so the answer is the same each time.
    @Test func aDamagedPhotoAloneIsBlamedOnItsDecodeEveryTime() throws {
        let folder = try Fixtures.temporaryDirectory("alone-damage")
        let photo = folder.appendingPathComponent("Bridge.jpg")
        try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg")).prefix(111_104).write(to: photo)
        for attempt in 1...6 {
            let result = try CLIProcess.run(["run", Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path, photo.path,
                                             "--out", folder.appendingPathComponent("out").path])
            #expect(result.status == 1)
            #expect(result.lines.first == "FAILED  Bridge: image: Cannot decode \"\(photo.path)\": VipsJpeg: Premature end of input file. The file is damaged (found when its pixels were read).",
                    "attempt \(attempt): \(result.lines)")
        }
    }
}

extension SafetyCommandTests {
    /// A smart crop reads the pixels as the thumbnail is built: a cut-short photo beside others
    /// failed there with "libvips gave no message" (the call run again alone, and a streamed
    /// decode that failed once has no words the second time), and the contact sheet of a run
    /// whose every item failed said the same. Now the decode's own words, every time, and a
    /// sheet that says it had nothing to join.
    @Test func aCutShortPhotoBesideOthersKeepsItsWordsThroughASmartCrop() throws {
        let folder = try Fixtures.temporaryDirectory("smart-crop-damage")
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let bridge = try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg"))
        let cut = photos.appendingPathComponent("cut.jpg")
        try bridge.prefix(111_104).write(to: cut)
        for name in ["a", "b", "c"] { try bridge.write(to: photos.appendingPathComponent("\(name).jpg")) }
        let preset = try Fixtures.writePreset(#"""
            {"version": 1, "graph": [{"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "thumb", "op": "thumbnail", "width": 300, "height": 200, "fit": "cover", "crop": "attention"},
              {"op": "encode", "format": "jpeg"}, {"op": "write", "path": "{name}.jpg"},
              {"id": "sheet", "op": "vips.arrayjoin", "scope": "run", "in": "@thumb[*]", "across": 2},
              {"id": "sheet-png", "op": "encode", "scope": "run", "from": "sheet", "format": "png"},
              {"id": "sheet-save", "op": "write", "scope": "run", "from": "sheet-png", "path": "sheet.png"}]}
            """#, in: folder)
        let expected = "FAILED  cut: image: Cannot decode \"\(cut.path)\": VipsJpeg: Premature end of input file. The file is damaged (found when its pixels were read)."
        for attempt in 1...3 {
            let result = try CLIProcess.run(["run", preset, photos.path, "--out", folder.appendingPathComponent("out-\(attempt)").path, "--jobs", "2"])
            #expect(result.status == 1)
            #expect(result.lines.contains(expected), "attempt \(attempt): \(result.lines)")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out-\(attempt)/sheet.png").path))
        }
        let alone = try CLIProcess.run(["run", preset, cut.path, "--out", folder.appendingPathComponent("alone").path])
        #expect(alone.status == 1)
        #expect(alone.lines.contains(expected), "\(alone.lines)")
        #expect(alone.lines.contains("FAILED  sheet (run scope): Node \"sheet\" has nothing to work on: its \"in\" gathers every item's output, and no item made one (each failed, or there were none). Fix the failed items and run again."),
                "\(alone.lines)")
    }

    /// An assertion inside libvips fails the item with the check libvips named, and what libvips
    /// prints on its own (with printf) stays off standard output, which is the report.
    @Test func anAssertionInLibvipsLeavesTheReportClean() throws {
        let folder = try Fixtures.temporaryDirectory("assertion-cli")
        let preset = try Fixtures.writePreset(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "vips.similarity", "scale": 0.0001},
              {"op": "encode", "format": "png"}, {"op": "write", "path": "{name}.png"}]}
            """#, in: folder)
        let result = try CLIProcess.run(["run", preset, Fixtures.samples.appendingPathComponent("Bridge.jpg").path, "--out", folder.path])
        #expect(result.status == 1)
        #expect(result.lines == [
            "FAILED  Bridge: vips.similarity: libvips similarity stopped on an internal check (vips_image_generate: assertion failed: (vips_object_sanity( VIPS_OBJECT( image ) ))): an image of zero width or height, or values it cannot handle. The item failed; the run goes on.",
        ] + result.lines.suffix(1), "\(result.lines)")
        #expect(result.lines.last?.hasPrefix("1 item: 0 succeeded, 1 failed; ") == true)
    }
}
