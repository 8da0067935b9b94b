import Foundation
import Testing
import WorkbenchTestSupport

/// A PNG thumbnail through our PNG decoder is libvips' own: the same pixels as `vips thumbnail`
/// (libpng's decode) for every kind the decoder reads, and `--verbose` says why it left the
/// others to libpng, which still makes them.
@Suite struct PNGThumbnailTests {
    @Test func everyKindOfPNGMakesLibvipsThumbnail() throws {
        let folder = try Fixtures.temporaryDirectory("png-thumbnails")
        let inputs = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["python3", Fixtures.packageRoot.appendingPathComponent("Tests/Support/make_pngs.py").path, inputs.path]
        try make.runToExit()
        try #require(make.terminationStatus == 0)
        let preset = try Fixtures.writePreset("""
            { "version": 1, "graph": [ { "id": "s", "op": "read" }, { "id": "d", "op": "decode" },
              { "id": "t", "op": "thumbnail", "width": 16 }, { "id": "e", "op": "encode", "format": "png" },
              { "id": "w", "op": "write", "path": "{name}.png" } ] }
            """, in: folder)
        let out = folder.appendingPathComponent("out")
        let run = try CLIProcess.run(["run", preset, inputs.path, "--out", out.path, "--progress", "plain", "--verbose"])
        let read = ["grey", "grey-alpha", "rgb", "rgba", "rgb-split", "palette", "palette-trns", "grey-trns", "rgb-trns", "text-and-gamma",
                    "grey-1bit", "grey-4bit", "palette-2bit", "palette-2bit-trns", "grey-2bit-trns"]
        for name in read {
            #expect(!run.stderr.contains("/\(name).png: PNG decoder declined"), "\(name)")
            #expect(run.stderr.contains("\(name): decode: loading with shrink-on-load for 37×23 → fit 16×∞ (PNG decoded with libdeflate)"), "\(name)")
            try Fixtures.vips(["thumbnail", inputs.appendingPathComponent("\(name).png").path, folder.appendingPathComponent("\(name).v").path, "16"])
            try Fixtures.vips(["subtract", out.appendingPathComponent("\(name).png").path, folder.appendingPathComponent("\(name).v").path,
                               folder.appendingPathComponent("\(name)-difference.v").path])
            let largest = try Fixtures.vips(["max", folder.appendingPathComponent("\(name)-difference.v").path])
            let smallest = try Fixtures.vips(["min", folder.appendingPathComponent("\(name)-difference.v").path])
            #expect(Double(largest.trimmingCharacters(in: .whitespacesAndNewlines)) == 0
                        && Double(smallest.trimmingCharacters(in: .whitespacesAndNewlines)) == 0, "\(name): \(smallest)…\(largest)")
        }
        // Left to libpng, which reads them (or refuses them as before), with the reason.
        #expect(run.stderr.contains("sixteen-bit.png: PNG decoder declined (16-bit samples"), "\(run.stderr)")
        #expect(run.stderr.contains("interlaced.png: PNG decoder declined (an interlaced PNG)"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("sixteen-bit.png").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("four-bit-palette.png").path))
    }
}
