import Foundation
import Testing
import WorkbenchTestSupport

/// Progressive JPEG headers that claim huge images over a few bytes, in a batch with good
/// photos, in a process whose address space is capped (`ulimit -v`, as under strict overcommit
/// or a container's limit): each bomb fails its item with a message, every good photo is
/// written, and the process ends with exit 1, not a signal.
@Suite struct DecompressionBombTests {
    private static let preset = #"""
        {"version": 1, "graph": [{"op": "read"}, {"op": "decode", "maxPixels": 2147483647},
          {"op": "thumbnail", "width": 300}, {"op": "encode", "format": "jpeg"}, {"op": "write", "path": "{name}.jpg"}]}
        """#

    /// A progressive copy of a bundled photo, made by libjpeg-turbo's tools.
    private func progressivePhoto(in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent("progressive-bridge.jpg")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "djpeg \"$0\" | cjpeg -progressive -quality 85 > \"$1\"", Fixtures.samples.appendingPathComponent("Bridge.jpg").path, url.path]
        try shell.run()
        shell.waitUntilExit()
        try #require(shell.terminationStatus == 0)
        return url
    }

    @Test func bombsFailTheirItemsAndTheRestIsWritten() throws {
        let folder = try Fixtures.temporaryDirectory("bombs")
        let preset = try Fixtures.writePreset(Self.preset, in: folder)
        // 10000×10000 (the default maxPixels) over 64 bytes: 233 bytes in all.
        try JPEGBomb.make(width: 10_000, height: 10_000).write(to: folder.appendingPathComponent("bomb-square.jpg"))
        // 65500×32784: libjpeg would take 12 GiB for its coefficients.
        try JPEGBomb.make(width: 65_500, height: 32_784).write(to: folder.appendingPathComponent("bomb-wide.jpg"))
        let good = [try progressivePhoto(in: folder)] + Fixtures.samplePhotos.prefix(3)
        let inputs = good.map(\.path) + ["bomb-square.jpg", "bomb-wide.jpg"].map { folder.appendingPathComponent($0).path }
        let out = folder.appendingPathComponent("out")
        let result = try CLIProcess.run(["run", preset] + inputs + ["--out", out.path, "--progress", "plain"],
                                        launcher: ["/bin/sh", "-c", "ulimit -v 400000 && exec \"$0\" \"$@\""])
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(result.lines.contains { $0.hasPrefix("FAILED  bomb-wide: ") && $0.contains("needs 12287 MiB to decode, more than the limit of 1024 MiB; raise the decode node's \"maxMemory\"") },
                "\(result.lines)")
        #expect(result.lines.contains { $0.hasPrefix("FAILED  bomb-square: ") && $0.contains("the progressive JPEG is cut short: scan 1 has 64 bytes of data for 4687500 blocks") },
                "\(result.lines)")
        let written = Set(Fixtures.files(in: out).filter { $0.hasSuffix(".jpg") })
        #expect(written == Set(good.map { $0.deletingPathExtension().lastPathComponent + ".jpg" }), "\(written)")
    }

    /// `maxMemory` is the decode's to set: a photo whose decode needs more is refused, named.
    @Test func theMemoryLimitIsTheDecodesToSet() throws {
        let folder = try Fixtures.temporaryDirectory("max-memory")
        let preset = try Fixtures.writePreset(Self.preset.replacingOccurrences(of: #""maxPixels": 2147483647"#, with: #""maxMemory": 1"#), in: folder)
        let photo = try progressivePhoto(in: folder)
        let result = try CLIProcess.run(["run", preset, photo.path, "--out", folder.appendingPathComponent("out").path, "--progress", "plain"])
        #expect(result.status == 1)
        #expect(result.lines.contains { $0.contains("(1600×900, a progressive JPEG) needs 4 MiB to decode, more than the limit of 1 MiB") }, "\(result.lines)")
    }
}

extension DecompressionBombTests {
    /// Without a resize to fuse with, libjpeg decodes the file whole; the bomb is failed before
    /// it gets there (libjpeg would make up 100 million grey pixels), unless damage is accepted.
    @Test func aFullDecodeFailsTheBombToo() throws {
        let folder = try Fixtures.temporaryDirectory("bomb-full")
        try JPEGBomb.make(width: 10_000, height: 10_000).write(to: folder.appendingPathComponent("bomb-square.jpg"))
        let preset = try Fixtures.writePreset(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "encode", "format": "jpeg"}, {"op": "write", "path": "{name}.jpg"}]}
            """#, in: folder)
        let result = try CLIProcess.run(["run", preset, folder.appendingPathComponent("bomb-square.jpg").path,
                                         "--out", folder.appendingPathComponent("out").path, "--progress", "plain"])
        #expect(result.status == 1)
        #expect(result.lines.contains { $0.hasPrefix("FAILED  bomb-square: decode: ") && $0.contains("the progressive JPEG is cut short: scan 1 has 64 bytes of data for 4687500 blocks") },
                "\(result.lines)")
    }

    /// A valid progressive JPEG of 97 scans (every band of two coefficients of every component
    /// in a scan of its own), made by jpegtran from a scan script: each scan is a pass over the
    /// image for any decoder, so a decode allowed fewer refuses the file before decoding it,
    /// naming the limit to raise; under the default (500) it is written.
    @Test func aFileOfMoreScansThanTheLimitIsRefusedBeforeItIsDecoded() throws {
        let folder = try Fixtures.temporaryDirectory("scans")
        var script = "0,1,2: 0 0 0 0;\n"
        for component in 0..<3 {
            for k in stride(from: 1, through: 63, by: 2) { script += "\(component): \(k) \(min(k + 1, 63)) 0 0;\n" }
        }
        try script.write(to: folder.appendingPathComponent("scans.txt"), atomically: true, encoding: .utf8)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "jpegtran -scans scans.txt \"$0\" > many-scans.jpg", Fixtures.samples.appendingPathComponent("Bridge.jpg").path]
        shell.currentDirectoryURL = folder
        try shell.run()
        shell.waitUntilExit()
        try #require(shell.terminationStatus == 0)
        let preset = try Fixtures.writePreset(Self.preset, in: folder)
        let file = folder.appendingPathComponent("many-scans.jpg").path
        let refused = try CLIProcess.run(["run", preset, file, "--out", folder.appendingPathComponent("out").path, "--progress", "plain",
                                          "--set", "decode.maxScans=50"])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.lines.contains { $0.hasPrefix("FAILED  many-scans: ") && $0.contains("is a JPEG of more than 50 scans") && $0.contains("raise the decode node's \"maxScans\"") },
                "\(refused.stdout)\n\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/many-scans.jpg").path))
        let allowed = try CLIProcess.run(["run", preset, file, "--out", folder.appendingPathComponent("allowed").path, "-q"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("allowed/many-scans.jpg").path))
    }
}

/// When our progressive decoder leaves a file to libjpeg, `--verbose` says why.
@Suite struct ProgressiveDeclineTests {
    @Test func verboseNamesWhyTheProgressiveDecoderDeclined() throws {
        let folder = try Fixtures.temporaryDirectory("declined")
        let photo = folder.appendingPathComponent("arithmetic.jpg")
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Arithmetic coding: valid JPEG that libjpeg-turbo reads and our decoder does not.
        shell.arguments = ["-c", "djpeg \"$0\" | cjpeg -progressive -arithmetic -quality 85 > \"$1\"",
                           Fixtures.samples.appendingPathComponent("Bridge.jpg").path, photo.path]
        try shell.run()
        shell.waitUntilExit()
        try #require(shell.terminationStatus == 0)
        // The libvips path, where our progressive decoder works from 1/4 (150 px of 1600 keeps
        // twice the target at 1/4); the direct path would hand the whole file to libjpeg, which
        // reads arithmetic coding itself.
        let preset = try Fixtures.writePreset(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode", "engine": "libvips"},
              {"op": "thumbnail", "width": 150}, {"op": "encode", "format": "jpeg"}, {"op": "write", "path": "{name}.jpg"}]}
            """#, in: folder)
        let out = folder.appendingPathComponent("out")
        let verbose = try CLIProcess.run(["run", preset, photo.path, "--out", out.path, "--progress", "plain", "--verbose"])
        #expect(verbose.status == 0, "\(verbose.stderr)")
        let line = verbose.stderr.split(separator: "\n").first { $0.contains("progressive decoder declined") }
        #expect(line?.contains("arithmetic") == true && line?.contains("libvips decodes it") == true, "\(verbose.stderr)")
        #expect(Fixtures.files(in: out) == ["arithmetic.jpg"])
        // Without --verbose it is not a user's concern.
        let quiet = try CLIProcess.run(["run", preset, photo.path, "--out", folder.appendingPathComponent("quiet").path, "--progress", "plain"])
        #expect(quiet.status == 0 && !quiet.stderr.contains("declined"), "\(quiet.stderr)")
    }
}

/// `--verbose` says which engine made each item: the direct path, or libvips and why.
@Suite struct EngineChoiceTests {
    @Test func verboseSaysWhichEngineRanAndThePresetCanChoose() throws {
        let folder = try Fixtures.temporaryDirectory("engine-choice")
        let inputs = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.samples.appendingPathComponent("Bridge.jpg"), to: inputs.appendingPathComponent("plain.jpg"))
        try FileManager.default.copyItem(at: Fixtures.samples.appendingPathComponent("Bridge.jpg"), to: inputs.appendingPathComponent("turned.jpg"))
        try FileManager.default.copyItem(at: Fixtures.packageRoot.appendingPathComponent("Tests/Support/Photos/camera-cups.jpg"),
                                         to: inputs.appendingPathComponent("profiled.jpg"))
        let exiftool = Process()
        exiftool.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        exiftool.arguments = ["-q", "-overwrite_original", "-n", "-Orientation=6", inputs.appendingPathComponent("turned.jpg").path]
        try exiftool.run()
        exiftool.waitUntilExit()
        let preset = #"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode", "engine": "ENGINE"},
              {"op": "thumbnail", "width": 120}, {"op": "encode", "format": "jpeg", "Q": 80}, {"op": "write", "path": "{name}.jpg"}]}
            """#
        let auto = try Fixtures.writePreset(preset.replacingOccurrences(of: "ENGINE", with: "auto"), in: folder)
        let result = try CLIProcess.run(["run", auto, inputs.path, "--out", folder.appendingPathComponent("a").path, "--progress", "plain", "--verbose"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("plain: direct path: libjpeg at 1/4 (400×225), Lanczos-3 to 120×68 in YCbCr planes"), "\(result.stderr)")
        #expect(result.stderr.contains("turned: direct path: libjpeg at 1/2 (800×450), Lanczos-3 to 120×213 in YCbCr planes, turned upright (EXIF orientation 6)"), "\(result.stderr)")
        // Its profile is sRGB: nothing to convert, so the direct path takes it too.
        #expect(result.stderr.contains("profiled: direct path: libjpeg at 1/2 (240×150), Lanczos-3 to 120×75 in YCbCr planes"), "\(result.stderr)")
        let libvips = try Fixtures.writePreset(preset.replacingOccurrences(of: "ENGINE", with: "libvips"), in: folder)
        let forced = try CLIProcess.run(["run", libvips, inputs.path, "--out", folder.appendingPathComponent("b").path, "--progress", "plain", "--verbose"])
        #expect(forced.status == 0 && !forced.stderr.contains("direct path"), "\(forced.stderr)")
        // Every file made either way.
        for out in ["a", "b"] {
            #expect(Fixtures.files(in: folder.appendingPathComponent(out)).filter { $0.hasSuffix(".jpg") } == ["plain.jpg", "profiled.jpg", "turned.jpg"])
        }
    }
}
