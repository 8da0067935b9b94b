import Foundation
import Testing
import WorkbenchTestSupport

/// A PNG thumbnail through our PNG decoder is libvips' own: for every kind the decoder reads,
/// the same pixels as `vips thumbnail` (libpng's decode), or within a level of them where the
/// image has alpha and the direct path reduces it premultiplied; and `--verbose` says why it
/// left the others to libpng, which still makes them.
@Suite struct PNGThumbnailTests {
    /// Every kind make_pngs.py writes that the decoder reads (the others it leaves to libpng).
    static let read = ["grey", "grey-alpha", "rgb", "rgba", "rgb-split", "palette", "palette-trns", "grey-trns", "rgb-trns", "text-and-gamma",
                       "grey-1bit", "grey-4bit", "palette-2bit", "palette-2bit-trns", "grey-2bit-trns", "grey16", "grey16-alpha", "rgb16",
                       "rgba16", "grey16-trns", "rgb16-trns", "rgba-opaque", "interlaced", "interlaced-rgba16", "interlaced-palette-2bit"]
    /// 8-bit with alpha (a band of it, or from tRNS): reduced by `Resampler.reducePremultiplied`.
    static let premultiplied: Set = ["grey-alpha", "rgba", "palette-trns", "grey-trns", "rgb-trns", "palette-2bit-trns", "grey-2bit-trns",
                                     "rgba-opaque", "interlaced-palette-2bit"]

    /// At 16 pixels (37 → 16: Lanczos alone) and 7 (box-shrunk by 2 first, as libvips' resize does).
    @Test(arguments: [16, 7]) func everyKindOfPNGMakesLibvipsThumbnail(width: Int) throws {
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
              { "id": "t", "op": "thumbnail", "width": \(width) }, { "id": "e", "op": "encode", "format": "png" },
              { "id": "w", "op": "write", "path": "{name}.png" } ] }
            """, in: folder)
        let out = folder.appendingPathComponent("out")
        let run = try CLIProcess.run(["run", preset, inputs.path, "--out", out.path, "--progress", "plain", "--verbose"])
        for name in Self.read {
            #expect(!run.stderr.contains("/\(name).png: PNG decoder declined"), "\(name)")
            let how = Self.premultiplied.contains(name) ? "PNG decoded with libdeflate, reduced premultiplied on the direct path" : "PNG decoded with libdeflate"
            #expect(run.stderr.contains("\(name): decode: loading with shrink-on-load for 37×23 → fit \(width)×∞ (\(how))"), "\(name)")
            let (smallest, largest) = try difference(out.appendingPathComponent("\(name).png"), fromLibvipsThumbnailOf: inputs.appendingPathComponent("\(name).png"),
                                                     width: width, in: folder)
            // libvips premultiplies in floats as well; its sums and ours differ in the last bits.
            let allowed = Self.premultiplied.contains(name) ? 1.0 : 0
            #expect(smallest >= -allowed && largest <= allowed, "\(name): \(smallest)…\(largest)")
        }
        // Opaque stays opaque: float sums a hair under 255 must not be truncated to 254.
        let alpha = folder.appendingPathComponent("opaque-alpha.v").path
        try Fixtures.vips(["extract_band", out.appendingPathComponent("rgba-opaque.png").path, alpha, "3"])
        #expect(Double(try Fixtures.vips(["min", alpha]).trimmingCharacters(in: .whitespacesAndNewlines)) == 255)
        // Left to libpng, which reads them (or refuses them as before), with the reason.
        #expect(run.stderr.contains("animated.png: PNG decoder declined (an animated PNG)"), "\(run.stderr)")
        #expect(run.stderr.contains("animated: decode: loading with shrink-on-load for 37×23 → fit \(width)×∞ (PNG decoded by libpng: our decoder declines an animated PNG)"),
                "\(run.stderr)")
        #expect(run.stderr.contains("row-short.png: PNG decoder declined (image data that does not inflate to the image)"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("animated.png").path))
        // `explain` says the same from the header alone.
        let expected = ["rgba": "our PNG decoder (libdeflate's inflate), then reduced premultiplied on the direct path to \(width) wide",
                        "rgb16": "our PNG decoder (libdeflate's inflate), then libvips' thumbnail",
                        "animated": "libpng decodes it, as our PNG decoder declines an animated PNG; then libvips' thumbnail"]
        for (name, line) in expected {
            let explained = try CLIProcess.run(["explain", preset, inputs.appendingPathComponent("\(name).png").path])
            #expect(explained.stdout.contains("d: decoded by t in one step — \(line)"), "\(name): \(explained.stdout)")
        }
    }

    /// The smallest and largest band difference of `made` from `vips thumbnail FILE WIDTH`.
    private func difference(_ made: URL, fromLibvipsThumbnailOf file: URL, width: Int, in folder: URL) throws -> (Double, Double) {
        let name = file.deletingPathExtension().lastPathComponent
        let reference = folder.appendingPathComponent("\(name).v").path, difference = folder.appendingPathComponent("\(name)-difference.v").path
        try Fixtures.vips(["thumbnail", file.path, reference, "\(width)"])
        // 16-bit files: libvips' thumbnail stays 16-bit; the run's PNG is 8-bit, as `normalise` makes it.
        let eight = folder.appendingPathComponent("\(name)-8.v").path
        try Fixtures.vips(["colourspace", reference, eight, name.contains("grey") && !name.contains("palette") ? "b-w" : "srgb"])
        try Fixtures.vips(["subtract", made.path, eight, difference])
        let largest = try Fixtures.vips(["max", difference]).trimmingCharacters(in: .whitespacesAndNewlines)
        let smallest = try Fixtures.vips(["min", difference]).trimmingCharacters(in: .whitespacesAndNewlines)
        return (Double(smallest) ?? .nan, Double(largest) ?? .nan)
    }
}
