import Foundation
import Testing
import WorkbenchTestSupport
import WorkbenchVips

/// The plan a preset runs as (`GraphPlanner`): resizes of one image cascade from the largest,
/// one decode feeds every output, and `workbench explain` says so — real photos, real libvips.
@Suite struct PlanTests {
    /// Decodes a run did, by item name: each item's `decodes` in the run's `--report`.
    static func decodes(report: URL) throws -> [String: [String]] {
        let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: report)) as? [String: Any]
        let items = try #require(object?["items"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: try items.map { item in
            (try #require(item["name"] as? String), try #require(item["decodes"] as? [String]))
        })
    }

    /// Mean absolute difference per sample of two images of one size (the vips tool's own sums).
    static func meanDifference(_ a: URL, _ b: URL, in folder: URL) throws -> Double {
        let difference = folder.appendingPathComponent("difference.v"), absolute = folder.appendingPathComponent("absolute.v")
        try Fixtures.vips(["subtract", a.path, b.path, difference.path])
        try Fixtures.vips(["abs", difference.path, absolute.path])
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = ["avg", absolute.path]
        process.standardOutput = output
        try process.runToExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return try #require(Double(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// A srcset of three widths over real photos 1600 px wide, so that every width shrinks.
    static func srcset(in folder: URL, widths: [Int] = [200, 400, 800], engine: String = "auto") throws -> String {
        try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "*.jpg" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode", "engine": "\(engine)" },
                         { "id": "resized", "op": "thumbnail", "width": "{w}", "foreach": { "w": \(widths) } },
                         { "id": "encoded", "op": "encode", "format": "{fmt}", "Q": 80, "foreach": { "fmt": ["webp", "jpeg"] } },
                         { "id": "save", "op": "write", "path": "{name}-{w}.{fmt}" } ] }
            """, in: folder, name: "srcset-\(widths.map(String.init).joined(separator: "-"))-\(engine).json")
    }

    /// On both engines: libvips, and the direct path (the default here: JPEGs, and fits and
    /// encodes it writes).
    @Test(arguments: ["libvips", "auto"])
    func aSrcsetDecodesEachPhotoOnceAndMakesSmallerSizesFromLargerOnes(engine: String) throws {
        let folder = try Fixtures.temporaryDirectory("plan-srcset-\(engine)")
        let photos = Array(Fixtures.samplePhotos.prefix(2))
        for photo in photos { try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent(photo.lastPathComponent)) }
        let out = folder.appendingPathComponent("out")
        let report = folder.appendingPathComponent("report.json")
        let run = try CLIProcess.run(["run", try Self.srcset(in: folder, engine: engine), "--out", out.path, "--verbose", "--report", report.path])
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        #expect(Fixtures.files(in: out).count == photos.count * 6)
        // One decode an item, however many outputs read it: the 800 decodes and shrinks in one
        // step (libvips' shrink-on-load, or libjpeg and our Lanczos-3 on the direct path), the
        // 400 is made from the 800 and the 200 from the 400.
        // The report counts them; `--verbose` says the same words.
        let decodes = try Self.decodes(report: report)
        #expect(decodes.count == photos.count && decodes.values.allSatisfy { $0.count == 1 }, "\(decodes)")
        for words in decodes.values.joined() {
            if engine == "libvips" {
                #expect(words.hasPrefix("resized-800: decode: loading with shrink-on-load for 1600×") && words.contains("→ fit 800×∞"), "\(words)")
            } else {
                #expect(words.hasPrefix("resized-800: direct path: libjpeg at 1/1 (1600×") && words.contains("Lanczos-3 to 800×"), "\(words)")
            }
            #expect(run.stderr.contains(words.dropFirst("resized-800: ".count)), "\(run.stderr.suffix(2000))")
        }

        // What the cascade makes is what a thumbnail from the full image makes, to within
        // resampling: the same size to the pixel, and pixels under 3 levels apart on average
        // (libvips' own thumbnail, which decodes at a DCT scale, against a resize of the full
        // decode, differs by up to 2.4 on these photos).
        for photo in photos {
            let name = photo.deletingPathExtension().lastPathComponent
            for width in [200, 400] {
                let made = out.appendingPathComponent("\(name)-\(width).jpeg")
                let reference = folder.appendingPathComponent("reference-\(name)-\(width).jpg")
                try Fixtures.vips(["thumbnail", photo.path, reference.path + "[Q=80]", "\(width)", "--height", "10000000"])
                let image = try VipsImage.decode(try Data(contentsOf: made), origin: made.path)
                let expected = try VipsImage.decode(try Data(contentsOf: reference), origin: reference.path)
                #expect(image.width == expected.width && image.height == expected.height, "\(name) \(width): \(image.width)×\(image.height)")
                let difference = try Self.meanDifference(made, reference, in: folder)
                #expect(difference < 3, "\(name) \(width): \(difference)")
            }
        }
    }

    @Test func explainShowsTheCascadeAndHowAFileWouldBeDecoded() throws {
        let folder = try Fixtures.temporaryDirectory("plan-explain")
        let plan = try CLIProcess.run(["explain", try Self.srcset(in: folder, engine: "libvips"), Fixtures.samplePhotos[0].path])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("resized-200 (thumbnail)") && plan.stdout.contains("made from resized-400, 2× its size, not from image as written"),
                "\(plan.stdout)")
        #expect(plan.stdout.contains("its pixels are decoded by resized-800, which decodes and shrinks in one step"), "\(plan.stdout)")
        #expect(plan.stdout.contains("computed once an item and kept in memory for its 3 readers"))
        #expect(plan.stdout.contains("Per item: encode ×6, write ×6, thumbnail ×3, decode ×1, read ×1. 1 of the 3 resizes read the full image."),
                "\(plan.stdout)")
        #expect(plan.stdout.contains("JPEG, 1600×900") && plan.stdout.contains("image: decoded by resized-800 in one step — JPEG at full size: 800 wide is 2.00× smaller"),
                "\(plan.stdout)")
        let small = try CLIProcess.run(["explain", try Self.srcset(in: folder, widths: [100, 200, 400], engine: "libvips"), Fixtures.samplePhotos[0].path])
        #expect(small.stdout.contains("JPEG at 1/2 (800×450), leaving at least twice the target"), "\(small.stdout)")

        // With the engine left to choose, the whole tree runs on the direct path.
        let direct = try CLIProcess.run(["explain", try Self.srcset(in: folder), Fixtures.samplePhotos[0].path])
        #expect(direct.stdout.contains("with the fits and encodes after it, the direct path where the file allows")
                && direct.stdout.contains("image: the direct path (libjpeg and our own resampler, no libvips image) — JPEG at full size: 800 wide is 2.00× smaller"),
                "\(direct.stdout)")
        // Each encode says which encoder writes its file on either path.
        #expect(direct.stdout.contains("JPEG: by libjpeg at Q 80, 4:2:0, as libvips writes it, when its tree runs on the direct path; else by libvips' jpegsave at Q 80")
                && direct.stdout.contains("WebP: by libwebp at Q 80, method 4, when its tree runs on the direct path; else by libvips' webpsave at Q 80"),
                "\(direct.stdout)")
        let png = try CLIProcess.run(["explain", try Fixtures.writePreset("""
            { "version": 1, "graph": [ { "op": "read" }, { "op": "decode" }, { "op": "thumbnail", "width": 100 },
                                       { "id": "png", "op": "encode", "format": "png" }, { "op": "write", "path": "{name}.png" } ] }
            """, in: folder, name: "png.json")])
        #expect(png.stdout.contains("PNG: by libvips' pngsave (the direct path writes JPEG, WebP, AVIF and JPEG XL)"), "\(png.stdout)")

        let preset = Fixtures.presets.appendingPathComponent("responsive-images.json").path
        // The same as JSON; and --set changes the plan as it changes a run.
        let json = try CLIProcess.run(["explain", preset, "--json", "--set", "resized-960.width=700"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let steps = try #require(object["steps"] as? [[String: Any]])
        let reads = Dictionary(uniqueKeysWithValues: steps.map { ($0["id"] as? String ?? "", $0["reads"] as? [String] ?? []) })
        // 700 is less than twice 480 and 1920 less than... 1920/700 = 2.74: the 700 is made from
        // the 1920; the 480 cannot be made from the 700 (1.46×), so from the 1920 too (4×).
        #expect(reads["resized-700"] == ["resized-1920"] && reads["resized-480"] == ["resized-1920"] && reads["resized-1920"] == ["image"],
                "\(reads)")

        let missing = try CLIProcess.run(["explain", preset, "/nonexistent/photo.jpg"])
        #expect(missing.status == 2 && missing.stderr.contains("Cannot read \"/nonexistent/photo.jpg\""), "\(missing.stderr)")
        let folderGiven = try CLIProcess.run(["explain", preset, folder.path])
        #expect(folderGiven.status == 2 && folderGiven.stderr.contains("it is a folder"), "\(folderGiven.stderr)")
        // A file that is no image: said, and its item would fail (exit 1).
        let text = folder.appendingPathComponent("notes.jpg")
        try "not a photo".write(to: text, atomically: true, encoding: .utf8)
        let notImage = try CLIProcess.run(["explain", preset, text.path])
        #expect(notImage.status == 1 && notImage.stdout.contains("cannot be decoded, so its item would fail"), "\(notImage.stdout)")

        // A chain the direct path runs says so, with the scale; a file it declines, why.
        let chain = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "*.jpg" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "thumb", "op": "thumbnail", "width": 160 }, { "id": "jpeg", "op": "encode", "format": "jpeg", "Q": 80 },
                         { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder, name: "direct.json")
        let wine = try CLIProcess.run(["explain", chain, Fixtures.samples.appendingPathComponent("Wine.jpg").path])
        #expect(wine.stdout.contains("the direct path where the file allows") && wine.stdout.contains("image: the direct path")
                && wine.stdout.contains("JPEG at 1/2 (534×800)"), "\(wine.stdout)")
        // An sRGB profile needs no conversion: the direct path takes the file, with WebPs too.
        let cups = try CLIProcess.run(["explain", chain, Fixtures.cameraPhoto.path])
        #expect(cups.stdout.contains("an ICC profile") && cups.stdout.contains("image: the direct path (libjpeg"), "\(cups.stdout)")
        let cupsSrcset = try CLIProcess.run(["explain", try Self.srcset(in: folder), Fixtures.cameraPhoto.path])
        #expect(cupsSrcset.stdout.contains("image: the direct path (libjpeg"), "\(cupsSrcset.stdout)")
    }

    /// What the cascade leaves alone: sizes less than twice apart, a different shrink setting, a
    /// different free axis, and boxes that are not fitted inside.
    @Test func onlyResizesThatKeepAFactorOfTwoAreCascaded() throws {
        let folder = try Fixtures.temporaryDirectory("plan-rules")
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "*.jpg" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "big", "op": "thumbnail", "width": 1000 },
                         { "id": "near", "op": "thumbnail", "from": "image", "width": 600 },
                         { "id": "fast", "op": "thumbnail", "from": "image", "width": 300, "fastShrink": true },
                         { "id": "tall", "op": "thumbnail", "from": "image", "height": 200 },
                         { "id": "cover", "op": "thumbnail", "from": "image", "width": 200, "height": 200, "fit": "cover" },
                         { "id": "small", "op": "thumbnail", "from": "image", "width": 250 },
                         { "id": "e1", "op": "encode", "from": "big", "format": "jpeg" }, { "id": "w1", "op": "write", "path": "{name}-1.jpg" },
                         { "id": "e2", "op": "encode", "from": "near", "format": "jpeg" }, { "id": "w2", "op": "write", "path": "{name}-2.jpg" },
                         { "id": "e3", "op": "encode", "from": "fast", "format": "jpeg" }, { "id": "w3", "op": "write", "path": "{name}-3.jpg" },
                         { "id": "e4", "op": "encode", "from": "tall", "format": "jpeg" }, { "id": "w4", "op": "write", "path": "{name}-4.jpg" },
                         { "id": "e5", "op": "encode", "from": "cover", "format": "jpeg" }, { "id": "w5", "op": "write", "path": "{name}-5.jpg" },
                         { "id": "e6", "op": "encode", "from": "small", "format": "jpeg" }, { "id": "w6", "op": "write", "path": "{name}-6.jpg" } ] }
            """, in: folder)
        let json = try CLIProcess.run(["explain", preset, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stderr)")
        let steps = try #require(object["steps"] as? [[String: Any]])
        let reads = Dictionary(uniqueKeysWithValues: steps.map { ($0["id"] as? String ?? "", $0["reads"] as? [String] ?? []) })
        #expect(reads["big"] == ["image"] && reads["near"] == ["image"] && reads["fast"] == ["image"]
                && reads["tall"] == ["image"] && reads["cover"] == ["image"], "\(reads)")
        // 250 from 600 (2.4×), the nearest size at least twice its own — not from 1000 (4×).
        #expect(reads["small"] == ["near"], "\(reads)")

        // And the run makes what the graph as written makes: sizes right, every file there.
        try FileManager.default.copyItem(at: Fixtures.cameraPhoto, to: folder.appendingPathComponent("cups.jpg"))
        let run = try CLIProcess.run(["run", preset, "--out", folder.appendingPathComponent("out").path, "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        let small = try VipsImage.decode(try Data(contentsOf: folder.appendingPathComponent("out/cups-6.jpg")), origin: "cups-6.jpg")
        #expect(small.width == 250 && small.height == 156, "\(small.width)×\(small.height)")
    }

    /// The direct path takes a tree only when every node after the decode has a direct form:
    /// a filter after a fit, or an encoder option libvips alone knows, leaves it to libvips.
    @Test func theDirectTreeStopsAtWhatOnlyLibvipsDoes() throws {
        let folder = try Fixtures.temporaryDirectory("plan-direct-tree")
        func preset(_ name: String, sharpened: Bool = false, webp: String = "") throws -> String {
            let sharpen = sharpened ? #", { "id": "sharp", "op": "sharpen", "from": "big" }, { "id": "e3", "op": "encode", "from": "sharp", "format": "jpeg" }, { "id": "w3", "op": "write", "path": "{name}-3.jpg" }"# : ""
            return try Fixtures.writePreset("""
                { "version": 1, "inputs": { "glob": "*.jpg" },
                  "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                             { "id": "big", "op": "thumbnail", "width": 800 }, { "id": "small", "op": "thumbnail", "from": "big", "width": 300 },
                             { "id": "e1", "op": "encode", "from": "big", "format": "jpeg", "Q": 95 }, { "id": "w1", "op": "write", "path": "{name}-1.jpg" },
                             { "id": "e2", "op": "encode", "from": "small", "format": "webp"\(webp) }, { "id": "w2", "op": "write", "path": "{name}-2.webp" }\(sharpen) ] }
                """, in: folder, name: "\(name).json")
        }
        let note = "the direct path where the file allows"
        let filtered = try CLIProcess.run(["explain", try preset("filtered", sharpened: true)])
        #expect(filtered.status == 0 && !filtered.stdout.contains(note), "\(filtered.stdout)\(filtered.stderr)")
        // A WebP option only libvips' saver takes: libvips runs the tree.
        let effort = try CLIProcess.run(["explain", try preset("effort", webp: #", "effort": 6"#)])
        #expect(effort.status == 0 && !effort.stdout.contains(note), "\(effort.stdout)\(effort.stderr)")
        // Fits and plain encodes only: direct, a JPEG at 95 (4:4:4, from RGB) included.
        let plain = try preset("plain")
        let direct = try CLIProcess.run(["explain", plain])
        #expect(direct.status == 0 && direct.stdout.contains(note), "\(direct.stdout)\(direct.stderr)")
        try FileManager.default.copyItem(at: Fixtures.samplePhotos[0], to: folder.appendingPathComponent("photo.jpg"))
        let report = folder.appendingPathComponent("report.json")
        let run = try CLIProcess.run(["run", plain, "--out", folder.appendingPathComponent("out").path, "-q", "--report", report.path])
        #expect(run.status == 0, "\(run.stderr)")
        let decodes = try Self.decodes(report: report)
        #expect(decodes["photo"]?.count == 1 && decodes["photo"]?[0].contains("direct path: libjpeg") == true, "\(decodes)")
        let webp = try VipsImage.decode(try Data(contentsOf: folder.appendingPathComponent("out/photo-2.webp")), origin: "photo-2.webp")
        let jpeg = try VipsImage.decode(try Data(contentsOf: folder.appendingPathComponent("out/photo-1.jpg")), origin: "photo-1.jpg")
        #expect(webp.width == 300 && jpeg.width == 800, "\(webp.width) \(jpeg.width)")
    }
}
