import Foundation
import Testing
import WorkbenchTestSupport
import WorkbenchVips

/// The `workbench` executable end to end: real files, real libvips, real libcurl, real signals.
@Suite struct RunCommandTests {
    private func decode(_ file: URL) throws -> VipsImage {
        try VipsImage.decode(try Data(contentsOf: file), origin: file.path)
    }


    @Test func sepiaThumbnailsOnTheSamples() throws {
        let out = try Fixtures.temporaryDirectory("sepia")
        let result = try CLIProcess.run(["run", Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path,
                                         "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        let photos = Fixtures.samplePhotos
        #expect(photos.count == 6)
        #expect(Fixtures.files(in: out) == photos.map { $0.lastPathComponent }.sorted())
        #expect(result.lines.last?.hasPrefix("6 items: 6 succeeded; ") == true)
        #expect(result.lines.filter { $0.hasPrefix("ok ") }.count == 6)
        for photo in photos {
            let original = try decode(photo)
            let file = out.appendingPathComponent(photo.lastPathComponent)
            #expect(try Data(contentsOf: file).starts(with: [0xFF, 0xD8, 0xFF]))
            let thumb = try decode(file)
            #expect(thumb.loader == "jpegload_buffer")
            #expect(thumb.width == 512)
            let expectedHeight = Double(original.height) * 512 / Double(original.width)
            #expect(abs(Double(thumb.height) - expectedHeight) <= 1, "\(photo.lastPathComponent)")
            let means = try thumb.bandMeans()
            #expect(means[0] >= means[1] && means[1] >= means[2], "\(photo.lastPathComponent): \(means)")
        }
    }

    @Test func greyInputTurnsBrownish() throws {
        let folder = try Fixtures.temporaryDirectory("grey")
        let grey = folder.appendingPathComponent("grey.png")
        try Fixtures.writeGreyscale(to: grey)
        #expect(try decode(grey).bands == 1)

        let out = folder.appendingPathComponent("out")
        let result = try CLIProcess.run(["run", Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path,
                                         grey.path, "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        let means = try decode(out.appendingPathComponent("grey.jpg")).bandMeans()
        #expect(means.count == 3)
        #expect(means[0] > means[1] && means[1] > means[2], "\(means)")
        #expect(means[0] - means[2] > 20, "\(means)")
    }

    @Test func classicPhotosAgainstALocalServer() throws {
        let server = try TestServer()
        let folder = try Fixtures.temporaryDirectory("classic")
        let text = try String(contentsOf: Fixtures.presets.appendingPathComponent("classic-photos.json"), encoding: .utf8)
            .replacingOccurrences(of: "http://127.0.0.1:8080/", with: server.url("samples/"))
        let preset = try Fixtures.writePreset(text, in: folder)
        let out = folder.appendingPathComponent("out")
        let result = try CLIProcess.run(["run", preset, "--out", out.path])
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(Fixtures.files(in: out) == ["Bridge.jpg", "Mountain.jpg", "Picture 0B.jpg", "Seeding.jpg", "Sunset.jpg", "Wine.jpg"])
        let failures = result.lines.filter { $0.hasPrefix("FAILED") }.sorted()
        #expect(failures.count == 3)
        #expect(failures.first == "FAILED  Credits: image: Cannot decode \"\(server.url("samples/ATTRIBUTION.md"))\": VipsForeignLoad: buffer is not in a known format. The file may be damaged or not an image.")
        // libcurl's message includes the milliseconds it took, so only its ends are fixed.
        #expect(failures.dropFirst().first?.hasPrefix("FAILED  Harbour: fetch: http://127.0.0.1:9/Harbour.jpg could not be fetched: Failed to connect to 127.0.0.1 port 9") == true)
        #expect(failures.dropFirst().first?.hasSuffix("(libcurl error 7); nothing answered there: check that the server runs and the port is right.") == true)
        #expect(failures.last == "FAILED  Lighthouse: fetch: \(server.url("samples/Lighthouse.jpg")) answered HTTP 404 Not Found; check the URL.")
        #expect(result.lines.last?.hasPrefix("9 items: 6 succeeded, 3 failed; ") == true)
        // Every URL was fetched exactly once.
        let counts = try server.requestCounts()
        #expect(counts.count == 8 && counts.values.allSatisfy { $0 == 1 }, "\(counts)")
    }

    @Test func aBrokenItemFailsAloneWhileTheOthersSucceed() throws {
        let server = try TestServer()
        let out = try Fixtures.temporaryDirectory("broken")
        let result = try CLIProcess.run([
            "run", Fixtures.presets.appendingPathComponent("classic-photos.json").path, "--out", out.path,
            server.url("samples/Bridge.jpg"), server.url("status/404"), server.url("cut/Wine.jpg"),
            server.url("garbage.jpg"), server.url("truncated/sunset.jpg"), server.url("samples/seeding.jpg"),
        ])
        #expect(result.status == 1)
        #expect(Fixtures.files(in: out) == ["Bridge.jpg", "seeding.jpg"])
        let failed = Dictionary(uniqueKeysWithValues: result.lines.filter { $0.hasPrefix("FAILED") }.map { line in
            (String(line.dropFirst(8).prefix { $0 != ":" }), line)
        })
        #expect(failed.keys.sorted() == ["404", "Wine", "garbage", "sunset"])
        #expect(failed["404"]?.contains("answered HTTP 404 Not Found") == true)
        // The cut file fails when its pixels are read (while encoding), and is blamed on its decode
        // in libvips' own words, even with other items failing at the same time.
        #expect(failed["Wine"]?.contains("Wine: image: Cannot decode \"\(server.url("cut/Wine.jpg"))\": VipsJpeg: Premature end of input file. The file is damaged") == true,
                "\(failed["Wine"] ?? "")")
        #expect(failed["garbage"]?.contains("image: Cannot decode") == true)
        #expect(failed["sunset"]?.contains("libcurl error 18") == true)
    }

    @Test func interruptLeavesNoPartialFilesAndExits130() throws {
        let server = try TestServer()
        let folder = try Fixtures.temporaryDirectory("sigint")
        let preset = try Fixtures.writePreset("""
            {"version": 1, "queues": {"net": {"concurrency": 2}},
             "graph": [{"op": "download"}, {"op": "decode"}, {"op": "vips.thumbnail_image", "width": 256},
                       {"op": "encode", "format": "png"}, {"op": "write", "path": "{index}.png"}]}
            """, in: folder)
        let out = folder.appendingPathComponent("out")
        let inputs = (0..<30).map { server.url("slow/\(Fixtures.samplePhotos[$0 % 6].lastPathComponent)?delay=0.4&n=\($0)") }
        let process = try CLIProcess(["run", preset, "--out", out.path] + inputs)
        let deadline = ContinuousClock.now + .seconds(300)  // only a hang waits this long
        while !process.stdoutSoFar.contains("ok ") && ContinuousClock.now < deadline { usleep(20_000) }
        process.interrupt()
        let result = process.wait()
        #expect(result.status == 130, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stderr.contains("Interrupted"))
        #expect(result.lines.last?.hasPrefix("Interrupted: 30 items: ") == true, "\(result.stdout)")
        // More inputs than the run's window: the parts, "not started" included, add up to the inputs.
        #expect(result.lines.last?.contains(" not started;") == true, "\(result.stdout)")
        let counts = (result.lines.last ?? "").matches(of: #/(\d+) (?:succeeded|failed|stopped|not started)/#).compactMap { Int($0.1) }
        #expect(counts.reduce(0, +) == 30, "\(result.lines.last ?? "")")
        let files = Fixtures.files(in: out)
        #expect(!files.isEmpty && files.count < 30, "\(files)")
        #expect(files.allSatisfy { $0.hasSuffix(".png") && !$0.hasPrefix(".") }, "\(files)")
        for file in files { #expect(try decode(out.appendingPathComponent(file)).width == 256) }
        #expect(try server.requestCounts().values.reduce(0, +) < 30)
    }

    @Test func secondInterruptExitsAtOnceWithoutLeftovers() throws {
        let server = try TestServer()
        let folder = try Fixtures.temporaryDirectory("sigint2")
        let preset = try Fixtures.writePreset("""
            {"version": 1, "graph": [{"op": "download", "timeout": 60}, {"op": "write", "path": "{index}.jpg"}]}
            """, in: folder)
        let out = folder.appendingPathComponent("out")
        let process = try CLIProcess(["run", preset, "--out", out.path, server.url("slow/Bridge.jpg?delay=30"),
                                      server.url("slow/Wine.jpg?delay=30")])
        let deadline = ContinuousClock.now + .seconds(300)  // only a hang waits this long
        while (try? server.requestCounts().count) ?? 0 < 2 && ContinuousClock.now < deadline { usleep(20_000) }
        process.interruptAndAwaitNotice()
        process.interrupt()
        let result = process.wait()
        #expect(result.status == 130)
        #expect(Fixtures.files(in: out).isEmpty)
    }

    @Test func failFastStopsAtTheFirstFailure() throws {
        let server = try TestServer()
        let out = try Fixtures.temporaryDirectory("failfast")
        let result = try CLIProcess.run([
            "run", Fixtures.presets.appendingPathComponent("classic-photos.json").path, "--out", out.path, "--fail-fast",
            "--jobs", "1", server.url("status/404"), server.url("slow/Bridge.jpg?delay=2"), server.url("slow/Wine.jpg?delay=2"),
        ])
        #expect(result.status == 1)
        #expect(result.lines.last?.hasPrefix("Stopped at the first failure: ") == true, "\(result.stdout)")
        #expect(Fixtures.files(in: out).isEmpty)
    }

    @Test func serverErrorsAreRetriedAndClientErrorsAreNot() throws {
        let server = try TestServer()
        let folder = try Fixtures.temporaryDirectory("retry")
        let preset = try Fixtures.writePreset("""
            {"version": 1, "graph": [{"op": "download", "retries": 2, "retryDelay": 0.05},
                                     {"op": "write", "path": "{index}.bin"}]}
            """, in: folder)
        let result = try CLIProcess.run(["run", preset, "--out", folder.appendingPathComponent("out").path,
                                         server.url("status/503"), server.url("status/404")])
        #expect(result.status == 1)
        let counts = try server.requestCounts()
        #expect(counts["/status/503"] == 3)
        #expect(counts["/status/404"] == 1)
    }

    @Test func pathTraversalIsRefused() throws {
        let folder = try Fixtures.temporaryDirectory("traversal")
        let bad = try Fixtures.writePreset("""
            {"version": 1, "graph": [{"op": "read"}, {"op": "write", "path": "../../escape/{name}"}]}
            """, in: folder)
        let result = try CLIProcess.run(["validate", bad])
        #expect(result.status == 2)
        #expect(result.stderr.contains(#"graph[1].path: "../../escape/{name}" contains ".."; a write may not leave the output root"#))

        // Item names cannot smuggle separators into a path either.
        let sample = Fixtures.samples.appendingPathComponent("Bridge.jpg").path
        let preset = try Fixtures.writePreset("""
            {"version": 1, "inputs": {"map": {"../../escape": "\(sample)"}},
             "graph": [{"op": "read"}, {"op": "write", "path": "copies/{name}.jpg"}]}
            """, in: folder, name: "map.json")
        let out = folder.appendingPathComponent("out")
        let run = try CLIProcess.run(["run", preset, "--out", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Fixtures.files(in: folder).filter { !$0.hasSuffix(".json") } == ["out/copies/.._.._escape.jpg"])
    }

    /// https:// to a server that speaks plain http: OpenSSL's "wrong version number" is said in
    /// words a person who typed the URL can act on.
    @Test func httpsToAnHTTPPortSaysWhatItMeans() throws {
        let server = try TestServer()
        let folder = try Fixtures.temporaryDirectory("https-to-http")
        let url = server.url("samples/Bridge.jpg").replacingOccurrences(of: "http://", with: "https://")
        let preset = try Fixtures.writePreset(#"{"version": 1, "inputs": ["\#(url)"], "graph": [{"op": "download"}, {"op": "write", "path": "{name}.jpg"}]}"#, in: folder)
        let result = try CLIProcess.run(["run", preset, "--out", folder.appendingPathComponent("out").path])
        #expect(result.status == 1)
        #expect(result.stdout.contains("the server did not answer in TLS: it probably speaks plain http on that port, so use http://"), "\(result.stdout)")
    }

    @Test func usageAndPresetErrorsExitWith2() throws {
        let missing = try CLIProcess.run(["run", "/nonexistent/preset.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "Cannot read the preset \"/nonexistent/preset.json\": no such file.\n")
        #expect(try CLIProcess.run(["run"]).status == 2)
        #expect(try CLIProcess.run(["frobnicate"]).status == 2)
        let folder = try Fixtures.temporaryDirectory("usage")
        let preset = try Fixtures.writePreset(#"{"version": 1, "graph": [{"op": "read"}]}"#, in: folder)
        let noInputs = try CLIProcess.run(["run", preset])
        #expect(noInputs.status == 2)
        #expect(noInputs.stderr.contains("has no \"inputs\""))
        let file = folder.appendingPathComponent("plain-file")
        try Data().write(to: file)
        let badOut = try CLIProcess.run(["run", Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path,
                                         "--out", file.appendingPathComponent("sub").path])
        #expect(badOut.status == 2)
        #expect(badOut.stderr.hasSuffix(": Not a directory. Choose another with --out.\n"), "\(badOut.stderr)")
        // A mistyped input folder is the same mistake as a glob that matches nothing: exit 2,
        // before anything runs, naming the path.
        let sepia = Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path
        let missingFolder = try CLIProcess.run(["run", sepia, "no-such-folder", "--out", folder.appendingPathComponent("out").path], in: folder)
        #expect(missingFolder.status == 2, "\(missingFolder.stderr)")
        #expect(missingFolder.stderr.contains("No file or folder \"no-such-folder\""), "\(missingFolder.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out").path))
        let noMatch = try CLIProcess.run(["run", try Fixtures.writePreset(#"{"version": 1, "inputs": {"glob": "none/*.jpg"}, "graph": [{"op": "read"}]}"#, in: folder, name: "glob.json")])
        #expect(noMatch.status == missingFolder.status)
        // A URL for a preset that reads local files: said once, before anything runs.
        let reads = try Fixtures.writePreset(#"{"version": 1, "graph": [{"id": "source", "op": "read"}, {"op": "decode"}, {"op": "encode", "format": "png"}, {"op": "write", "path": "{name}.png"}]}"#, in: folder, name: "reads.json")
        let url = try CLIProcess.run(["run", reads, Fixtures.samplePhotos[0].path, "http://127.0.0.1:9/a.jpg", "--out", folder.appendingPathComponent("out").path])
        #expect(url.status == 2 && url.stderr.contains("\"http://127.0.0.1:9/a.jpg\" is a URL, but \"source\" (graph[0]) is a \"read\""), "\(url.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out").path))
    }

    @Test func watermarkSheetPreset() throws {
        let out = try Fixtures.temporaryDirectory("watermark-sheet")
        let result = try CLIProcess.run(["run", Fixtures.presets.appendingPathComponent("watermark-sheet.json").path, "--out", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        let photos = Fixtures.samplePhotos.map { $0.deletingPathExtension().lastPathComponent + ".webp" }
        #expect(Fixtures.files(in: out) == (photos + ["contact-sheet.jpg"]).sorted())
        for photo in photos {
            let image = try decode(out.appendingPathComponent(photo))
            #expect((image.width, image.height) == (480, 320), "\(photo)")
        }
        // Three across, two down, 8 px apart.
        let sheet = try decode(out.appendingPathComponent("contact-sheet.jpg"))
        #expect((sheet.width, sheet.height) == (3 * 480 + 2 * 8, 2 * 320 + 8))
        // The logo's white text lands in the bottom-right corner of every photo.
        let corner = try VipsImage.decode(Data(contentsOf: out.appendingPathComponent(photos[0])), origin: "corner")
        #expect(try corner.bandMeans().count == 3)
    }

    @Test func filmLookPresetIsTheSameOnEveryRun() throws {
        let preset = Fixtures.presets.appendingPathComponent("film-look.json").path
        var runs: [[String: Data]] = []
        for _ in 0..<2 {
            let out = try Fixtures.temporaryDirectory("film-look")
            let result = try CLIProcess.run(["run", preset, "--out", out.path])
            #expect(result.status == 0, "\(result.stderr)")
            let names = Fixtures.files(in: out)
            #expect(names.count == 2 * Fixtures.samplePhotos.count)
            let first = try decode(out.appendingPathComponent(names[0]))
            #expect(first.width == 960)
            runs.append(Dictionary(uniqueKeysWithValues: try names.map { ($0, try Data(contentsOf: out.appendingPathComponent($0))) }))
        }
        // Grain depends on position and seed only: a rerun writes the same bytes.
        #expect(runs[0] == runs[1])
    }

    @Test func theResponsiveImagesPresetWritesEveryWidthInEveryFormat() throws {
        let preset = Fixtures.presets.appendingPathComponent("responsive-images.json").path
        let text = try String(contentsOfFile: preset, encoding: .utf8)
        let nodes = try #require((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["graph"] as? [Any])
        #expect(nodes.count <= 11)
        let out = try Fixtures.temporaryDirectory("responsive")
        let run = try CLIProcess.run(["run", preset, "--out", out.path, "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        let names = Fixtures.files(in: out)
        // Nine images, the page and the JSON a photo, and the run's index.
        #expect(names.count == Fixtures.samplePhotos.count * 11 + 1)
        #expect(names.contains("srcset.json") && names.contains("Bridge.html") && names.contains("Bridge.json"))
        for width in [480, 960, 1920] {
            for format in ["avif", "webp", "jpeg"] {
                let file = out.appendingPathComponent("Bridge-\(width).\(format)")
                let image = try decode(file)
                // Bridge.jpg is 1600 px wide: thumbnail does not enlarge it past that.
                #expect(image.width == min(width, 1600), "\(file.lastPathComponent)")
                #expect(image.loader?.hasPrefix(["jpeg": "jpeg", "webp": "webp", "avif": "heif"][format] ?? "") == true)
            }
        }
    }

    /// The quality-target example: each file its own quality, said per output with `--verbose`
    /// and in the report, and by `explain` before the run.
    @Test func theQualityTargetPresetSaysWhatEachFileGot() throws {
        let preset = Fixtures.presets.appendingPathComponent("quality-target.json").path
        let out = try Fixtures.temporaryDirectory("quality-target")
        let report = out.appendingPathComponent("report.json")
        let run = try CLIProcess.run(["run", preset, "--out", out.appendingPathComponent("files").path, "--verbose", "--report", report.path])
        #expect(run.status == 0, "\(run.stderr)")
        let chosen = run.lines.filter { $0.contains("encoded-jpeg: Q ") || $0.contains("encoded-webp: Q ") }
        #expect(chosen.count == Fixtures.samplePhotos.count * 2, "\(run.stdout)")
        let items = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])?["items"] as? [[String: Any]])
        var qualities = Set<Int>()
        for item in items {
            let measured = try #require(item["measurements"] as? [[String: Any]])
            #expect(measured.count == 2)
            for m in measured {
                #expect((m["ssimulacra2"] as? Double ?? 0) >= 80 && m["met"] as? Int == 1, "\(m)")
                qualities.insert(m["Q"] as? Int ?? 0)
            }
        }
        // One Q does not fit every photo: that is the point.
        #expect(qualities.count > 2, "\(qualities)")
        let explain = try CLIProcess.run(["explain", preset])
        #expect(explain.stdout.contains("the quality searched for each output: SSIMULACRA2 ≥ 80"), "\(explain.stdout)")
    }

    @Test func aTreeIsMirroredUnderTheOutputRootOfThePresetsFolder() throws {
        let folder = try Fixtures.temporaryDirectory("mirror"), elsewhere = try Fixtures.temporaryDirectory("cwd")
        let photos = Fixtures.samplePhotos
        for (i, subfolder) in ["", "2024", "2024/rome", ".hidden"].enumerated() {
            let target = folder.appendingPathComponent("photos").appendingPathComponent(subfolder)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: photos[i], to: target.appendingPathComponent(photos[i].lastPathComponent))
        }
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "photos/**/*.jpg" }, "output": "mirrored",
              "graph": [ { "op": "read" }, { "op": "decode" }, { "op": "thumbnail", "width": 64 },
                         { "op": "encode", "format": "jpeg" }, { "op": "write", "path": "{dir}/{name}.jpg" } ] }
            """, in: folder)
        // Run from another folder: `output` is the preset's folder's, not the current one's.
        let run = try CLIProcess.run(["run", preset, "-q"], in: elsewhere)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Fixtures.files(in: folder.appendingPathComponent("mirrored")) == [
            "2024/\(photos[1].lastPathComponent)", "2024/rome/\(photos[2].lastPathComponent)", photos[0].lastPathComponent,
        ].sorted())
        #expect(Fixtures.files(in: elsewhere).isEmpty)
    }

    @Test func setOverridesANodeParameterAndIsCheckedLikeTheFile() throws {
        let preset = Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path
        let out = try Fixtures.temporaryDirectory("set")
        let run = try CLIProcess.run(["run", preset, "--out", out.path, "-q", "--set", "thumb.width=100", "--set", "jpeg.format=webp"])
        #expect(run.status == 0, "\(run.stderr)")
        let image = try decode(out.appendingPathComponent("Bridge.jpg"))
        #expect(image.width == 100 && image.loader?.hasPrefix("webp") == true)

        let bad = try CLIProcess.run(["validate", preset, "--set", "thumb.width=abc", "--set", "tone.intensty=0.5", "--set", "thmb.width=3"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains(#"--set thumb.width=abc: error: graph[2].width: expected an integer 1…10000000, found "abc""#), "\(bad.stderr)")
        #expect(bad.stderr.contains(#"--set tone.intensty=0.5: error: graph[3].intensty: unknown parameter "intensty" for op "sepia"; did you mean "intensity"?"#))
        #expect(bad.stderr.contains(#"--set thmb.width=3: error: no node "thmb" in the graph; did you mean "thumb"?"#))
        // On a repeated node the wrong value is said once, and nothing else about the copies.
        let repeated = try CLIProcess.run(["validate", Fixtures.presets.appendingPathComponent("responsive-images.json").path,
                                           "--set", "resized.width=abc"])
        #expect(repeated.status == 2 && repeated.stderr.contains("The preset has 1 error:"), "\(repeated.stderr)")
        #expect(!repeated.stderr.contains("give \"width\", \"height\" or both"), "\(repeated.stderr)")
        let malformed = try CLIProcess.run(["validate", preset, "--set", "width=3"])
        #expect(malformed.status == 2 && malformed.stderr.contains("--set takes NODE.PARAM=VALUE"))
    }

    /// The responsive preset's copies by the ids `validate` prints, and its written nodes.
    @Test func setTakesAForeachCopysIdOrItsWrittenNode() throws {
        let preset = Fixtures.presets.appendingPathComponent("responsive-images.json").path
        let out = try Fixtures.temporaryDirectory("set-copies")
        let photo = Fixtures.samplePhotos[0]
        let name = photo.deletingPathExtension().lastPathComponent
        let listed = try CLIProcess.run(["validate", preset])
        #expect(listed.stdout.contains("encoded-480-jpeg"), "\(listed.stdout)")
        let run = try CLIProcess.run(["run", preset, "--out", out.path, "-q", photo.path,
                                      "--set", "encoded-480-jpeg.Q=20", "--set", "resized.height=100", "--set", "resized-960.height=50"])
        #expect(run.status == 0, "\(run.stderr)")
        func size(_ file: String) -> Int { (try? Data(contentsOf: out.appendingPathComponent(file)).count) ?? 0 }
        // Q 20 against 75: that copy's file is much smaller than without the --set; the others are the same.
        let reference = try Fixtures.temporaryDirectory("set-copies-reference")
        #expect(try CLIProcess.run(["run", preset, "--out", reference.path, "-q", photo.path, "--set", "resized.height=100"]).status == 0)
        func referenceSize(_ file: String) -> Int { (try? Data(contentsOf: reference.appendingPathComponent(file)).count) ?? 0 }
        #expect(size("\(name)-480.jpeg") * 4 < referenceSize("\(name)-480.jpeg") * 3)
        #expect(size("\(name)-1920.jpeg") == referenceSize("\(name)-1920.jpeg") && size("\(name)-480.webp") == referenceSize("\(name)-480.webp"))
        // The written node's height reached every copy; the copy's own went over it in resized-960 alone.
        #expect(try decode(out.appendingPathComponent("\(name)-1920.webp")).height == 100)
        #expect(try decode(out.appendingPathComponent("\(name)-480.jpeg")).height == 100)
        #expect(try decode(out.appendingPathComponent("\(name)-960.webp")).height == 50)
        #expect(try decode(out.appendingPathComponent("\(name)-960.jpeg")).height == 50)

        // A copy's own foreach value changes in the list, as the page's Save does: the copies and
        // their files are renamed, never a 1000 px image in "-960" or PNG bytes in ".webp".
        let moved = try Fixtures.temporaryDirectory("set-copies-moved")
        let renamed = try CLIProcess.run(["run", preset, "--out", moved.path, "-q", photo.path,
                                          "--set", "resized-960.width=1000", "--set", "encoded-480-webp.format=png"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(renamed.stderr.contains("w = 960 becomes 1000 there") && renamed.stderr.contains("fmt = webp becomes png there"), "\(renamed.stderr)")
        #expect(Fixtures.files(in: moved) == (["1000", "1920", "480"].flatMap { ["\(name)-\($0).avif", "\(name)-\($0).jpeg", "\(name)-\($0).png"] }
            + ["\(name).html", "\(name).json", "srcset.json"]).sorted())
        #expect(try decode(moved.appendingPathComponent("\(name)-1000.png")).width == 1000)
        #expect(try decode(moved.appendingPathComponent("\(name)-480.png")).loader?.hasPrefix("png") == true)

        let wrong = try CLIProcess.run(["validate", preset, "--set", "encoded-480-gif.Q=20"])
        #expect(wrong.status == 2 && wrong.stderr.contains("no node \"encoded-480-gif\"") && wrong.stderr.contains("encoded-480-jpeg"), "\(wrong.stderr)")
    }

    @Test func aPresetExtendsAnotherAndChangesItByNodeID() throws {
        let folder = try Fixtures.temporaryDirectory("extends")
        let baseFolder = folder.appendingPathComponent("base")
        try FileManager.default.createDirectory(at: baseFolder, withIntermediateDirectories: true)
        for photo in Fixtures.samplePhotos.prefix(2) { try FileManager.default.copyItem(at: photo, to: baseFolder.appendingPathComponent(photo.lastPathComponent)) }
        _ = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "*.jpg" }, "output": "out",
              "queues": { "cpu": { "concurrency": 1 } },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "thumb", "op": "thumbnail", "width": 300 }, { "id": "jpeg", "op": "encode", "format": "jpeg" },
                         { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: baseFolder, name: "base.json")
        let child = try Fixtures.writePreset("""
            { "version": 1, "extends": "base/base.json", "output": "child-out",
              "graph": [ { "id": "thumb", "width": 120 }, { "id": "jpeg", "format": "webp" },
                         { "id": "png", "op": "encode", "from": "thumb", "format": "png" },
                         { "id": "save-png", "op": "write", "path": "{name}.png" } ] }
            """, in: folder, name: "child.json")
        let run = try CLIProcess.run(["run", child, "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        let names = Fixtures.samplePhotos.prefix(2).map { $0.deletingPathExtension().lastPathComponent }
        // The base's inputs stay in the base's folder; the child's output is the child's.
        #expect(Fixtures.files(in: folder.appendingPathComponent("child-out")) == names.flatMap { ["\($0).jpg", "\($0).png"] }.sorted())
        let changed = try decode(folder.appendingPathComponent("child-out/\(names[0]).jpg"))
        #expect(changed.width == 120 && changed.loader?.hasPrefix("webp") == true)

        // A loop, and a base with a mistake: refused, the mistake in the base's own file.
        _ = try Fixtures.writePreset(#"{ "version": 1, "extends": "b.json", "graph": [ { "op": "read" } ] }"#, in: folder, name: "a.json")
        _ = try Fixtures.writePreset(#"{ "version": 1, "extends": "a.json", "graph": [ { "op": "read" } ] }"#, in: folder, name: "b.json")
        let loop = try CLIProcess.run(["validate", folder.appendingPathComponent("a.json").path])
        #expect(loop.status == 2 && loop.stderr.contains("(a.json → b.json → a.json); a chain of extends may not loop"), "\(loop.stderr)")
        _ = try Fixtures.writePreset(#"{ "version": 1, "graph": [ { "op": "read" }, { "op": "thumbnial" } ] }"#, in: folder, name: "broken.json")
        _ = try Fixtures.writePreset(#"{ "version": 1, "extends": "broken.json", "graph": [] }"#, in: folder, name: "c.json")
        let broken = try CLIProcess.run(["validate", folder.appendingPathComponent("c.json").path])
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("c.json:1:28: error: extends: the base has a problem: \(folder.path)/broken.json:1:54: error: graph[1].op: unknown op \"thumbnial\""), "\(broken.stderr)")
    }

    @Test func itemVariablesFillStringParametersPerItem() throws {
        let folder = try Fixtures.temporaryDirectory("label")
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "\(Fixtures.samples.path)/*.jpg" }, "output": "out",
              "graph": [ { "id": "label", "op": "vips.text", "text": "{name} #{index}", "dpi": 100 },
                         { "op": "encode", "format": "png" }, { "op": "write", "path": "{name}.png" } ] }
            """, in: folder)
        let run = try CLIProcess.run(["run", preset, "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        // Each label is its own text: the longest name makes the widest image.
        let widths = try Fixtures.samplePhotos.map { photo -> (String, Int) in
            let name = photo.deletingPathExtension().lastPathComponent
            return (name, try decode(folder.appendingPathComponent("out/\(name).png")).width)
        }
        #expect(Set(widths.map(\.1)).count > 3)
        #expect(widths.max { $0.1 < $1.1 }?.0 == "Picture_0B")
    }

    @Test func everyExamplePresetValidates() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.presets.path).filter { $0.hasSuffix(".json") }
        #expect(names.count >= 2)
        // plugin-looks.json uses the example plugins.
        let plugins = try TestPlugins.examples.get()
        let result = try CLIProcess.run(["validate", "--plugin-path", plugins.path] + names.map { Fixtures.presets.appendingPathComponent($0).path })
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.lines.count { $0.contains(": ok — ") } == names.count)
    }
}

/// Filters made of other ops, shipped in a plugin's manifest: no library, no build.
@Suite struct PluginSubGraphTests {
    static func plugin(in folder: URL) throws -> URL {
        let plugins = folder.appendingPathComponent("plugins/looks")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        try """
            { "name": "looks", "version": "2.1.0", "api": 1,
              "filters": [ { "name": "warmSoft", "summary": "Sepia, then a slight blur.",
                             "parameters": [ { "name": "strength", "type": "number", "min": 0, "max": 1, "default": 0.5, "summary": "How brown." } ],
                             "graph": [ { "id": "tone", "op": "sepia", "intensity": "{strength}" },
                                        { "id": "soft", "op": "vips.gaussblur", "sigma": 0.8 } ] } ] }
            """.write(to: plugins.appendingPathComponent("plugin.json"), atomically: true, encoding: .utf8)
        return plugins.deletingLastPathComponent()
    }

    @Test func aPluginsSubGraphRunsAsItsNodesWouldAndIsListed() throws {
        let folder = try Fixtures.temporaryDirectory("plugin-graph")
        let plugins = try Self.plugin(in: folder)
        let head = """
            { "version": 1, "inputs": { "glob": "\(Fixtures.samples.path)/*.jpg" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" }, { "id": "small", "op": "thumbnail", "width": 160 },
            """
        let tail = """
                         { "id": "png", "op": "encode", "format": "png" }, { "id": "save", "op": "write", "path": "{name}.png" } ] }
            """
        let used = try Fixtures.writePreset(head + "{ \"id\": \"look\", \"op\": \"looks.warmSoft\", \"strength\": 0.9 },\n" + tail, in: folder, name: "used.json")
        let inline = try Fixtures.writePreset(head + """
            { "id": "tone", "op": "sepia", "intensity": 0.9 }, { "id": "soft", "op": "vips.gaussblur", "sigma": 0.8 },
            """ + tail, in: folder, name: "inline.json")
        let a = folder.appendingPathComponent("a"), b = folder.appendingPathComponent("b")
        let first = try CLIProcess.run(["run", used, "--plugin-path", plugins.path, "--out", a.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try CLIProcess.run(["run", inline, "--out", b.path]).status == 0)
        let files = Fixtures.files(in: a)
        #expect(files.count == Fixtures.samplePhotos.count && files == Fixtures.files(in: b))
        for file in files { #expect(FileManager.default.contents(atPath: a.appendingPathComponent(file).path) == FileManager.default.contents(atPath: b.appendingPathComponent(file).path)) }

        let listed = try CLIProcess.run(["filters", "looks.warmSoft", "--plugin-path", plugins.path])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("Sepia, then a slight blur. (plugin looks 2.1.0)") && listed.stdout.contains("strength"), "\(listed.stdout)")
        #expect(try CLIProcess.run(["filters", "--plugin-path", plugins.path]).stdout.contains("looks.warmSoft"))
        // Checked where it is used, like any op.
        let wrong = try Fixtures.writePreset(head + "{ \"id\": \"look\", \"op\": \"looks.warmSoft\", \"strength\": 3 },\n" + tail, in: folder, name: "wrong.json")
        let refused = try CLIProcess.run(["validate", wrong, "--plugin-path", plugins.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("wrong.json:4:") && refused.stderr.contains("graph[3].strength"), "\(refused.stderr)")
    }
}
