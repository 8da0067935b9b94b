import Foundation
import Testing
import WorkbenchCore
import WorkbenchDirect
import WorkbenchTestSupport
@testable import WorkbenchVips

/// AVIF on the direct path: a srcset with AVIF beside WebP and JPEG stays one direct tree, and
/// its AVIF files are what libvips' heifsave makes of the same photos, near enough to see no
/// difference, at the same sizes and with the same profiles.
@Suite(.serialized) struct DirectAVIFTests {
    /// libvips' run adds a PNG of each size: the thumbnail both AVIFs are measured against.
    static func srcset(engine: String, formats: [String]) -> String {
        """
        {"version": 1, "graph": [{"id": "in", "op": "read"}, {"id": "image", "op": "decode", "engine": "\(engine)"},
          {"id": "small", "op": "thumbnail", "width": "{w}", "foreach": {"w": [300, 120]}},
          {"id": "encoded", "op": "encode", "format": "{fmt}", "foreach": {"fmt": [\(formats.map { "\"\($0)\"" }.joined(separator: ", "))]}},
          {"id": "save", "op": "write", "path": "{name}-{w}.{fmt}"}]}
        """
    }

    @Test func anAVIFSrcsetStaysOneDirectTreeAndMatchesLibvipsAVIF() async throws {
        let harness = try PresetHarness("direct-avif")
        let inputs = try DirectPathTests.inputs(in: harness.folder)
        let (_, direct) = try await harness.run(Self.srcset(engine: "auto", formats: ["avif", "webp", "jpeg"]), inputs: [inputs.path], output: "direct")
        let (_, vips) = try await harness.run(Self.srcset(engine: "libvips", formats: ["avif", "png"]), inputs: [inputs.path], output: "vips")
        let byName = Dictionary(vips.map { ($0.item.name, $0) }, uniquingKeysWith: { first, _ in first })
        var onDirectPath = 0
        var bytes: [String: Int] = [:]
        for report in direct where report.status == .succeeded && report.decodes.first?.contains("direct path: libjpeg") == true {
            onDirectPath += 1
            let name = report.item.name
            #expect(byName[name]?.status == .succeeded, "\(name)")
            // A photo narrower than 120 px makes only its 120 px copies, on both paths.
            let notMade = Set(report.notMade.map(\.path))
            #expect(Set(notMade.filter { $0.hasSuffix(".avif") }) == Set(byName[name]?.notMade.map(\.path).filter { $0.hasSuffix(".avif") } ?? []), "\(name)")
            for width in [300, 120] where !notMade.contains("\(name)-\(width).avif") {
                for format in ["avif", "webp", "jpeg"] {
                    bytes[format, default: 0] += try Data(contentsOf: harness.folder.appendingPathComponent("direct/\(name)-\(width).\(format)")).count
                }
                let file = "\(name)-\(width).avif"
                let (ours, theirs) = (try Data(contentsOf: harness.folder.appendingPathComponent("direct/\(file)")),
                                      try Data(contentsOf: harness.folder.appendingPathComponent("vips/\(file)")))
                #expect(ColourProfile.embedded(in: try VipsImage.decode(ours, origin: file)) == ColourProfile.embedded(in: try VipsImage.decode(theirs, origin: file)),
                        "\(file)")
                let reference = try DirectPathTests.decoded(try Data(contentsOf: harness.folder.appendingPathComponent("vips/\(name)-\(width).png")))
                let (p, q) = (try DirectPathTests.decoded(ours), try DirectPathTests.decoded(theirs))
                #expect((p.width, p.height, p.bands) == (q.width, q.height, q.bands), "\(file)")
                guard p.values.count == reference.values.count, q.values.count == reference.values.count else { continue }
                // Both lossy AV1 encodes measured against libvips' thumbnail: ours (Q 51, speed
                // 6, from the planes our resampler reduced) loses at most a little more than
                // libvips' (Q 50, effort 4, from its own thumbnail), or stays above 31 dB where
                // our resampler already parts from libvips' (camera-cups: 31.8 dB as JPEG).
                let (oursMean, oursPSNR) = DirectPathTests.difference(p.values, reference.values)
                let (theirsMean, theirsPSNR) = DirectPathTests.difference(q.values, reference.values)
                #expect(oursMean <= theirsMean + 1 && oursPSNR >= min(theirsPSNR - 1.5, 31),
                        "\(file): ours \(oursPSNR) dB, mean \(oursMean); libvips' \(theirsPSNR) dB, mean \(theirsMean)")
            }
        }
        #expect(onDirectPath >= 10, "\(onDirectPath)")
        // At every format's default, the files come in the order a web page expects.
        #expect(bytes["avif", default: 0] < bytes["webp", default: 0] && bytes["webp", default: 0] < bytes["jpeg", default: 0], "\(bytes)")
    }

    /// JPEG XL beside WebP keeps the tree on the direct path (RGB pixels, not planes): each JPEG
    /// XL, read back by the `vips` tool (its loader stays untrusted here), is the size of
    /// libvips' own and close to its pixels.
    @Test func aJPEGXLSrcsetStaysOnTheDirectPath() async throws {
        let harness = try PresetHarness("direct-jxl")
        let inputs = try DirectPathTests.inputs(in: harness.folder)
        let (_, direct) = try await harness.run(Self.srcset(engine: "auto", formats: ["jxl", "webp"]), inputs: [inputs.path], output: "direct")
        let (_, vips) = try await harness.run(Self.srcset(engine: "libvips", formats: ["jxl"]), inputs: [inputs.path], output: "vips")
        // Only the file cut short on purpose fails, on libvips' path as on ours.
        #expect(vips.filter { $0.status != .succeeded }.map(\.item.name) == ["truncated"], "\(vips.map { "\($0.item.name): \($0.status)" })")
        var onDirectPath = 0
        for report in direct where report.decodes.first?.contains("direct path: libjpeg") == true {
            #expect(report.status == .succeeded, "\(report.item.name): \(String(describing: report.failure))")
            onDirectPath += 1
            for width in [300, 120] where !report.notMade.contains(where: { $0.path.hasSuffix("-\(width).jxl") }) {
                var pixels: [(values: [UInt8], width: Int, height: Int, bands: Int)] = []
                for folder in ["direct", "vips"] {
                    let jxl = harness.folder.appendingPathComponent("\(folder)/\(report.item.name)-\(width).jxl")
                    let png = jxl.appendingPathExtension("png")
                    try ProgressiveFiles.run("/usr/bin/vips", ["copy", jxl.path, png.path])
                    pixels.append(try DirectPathTests.decoded(try Data(contentsOf: png)))
                }
                #expect((pixels[0].width, pixels[0].height, pixels[0].bands) == (pixels[1].width, pixels[1].height, pixels[1].bands), "\(report.item.name)-\(width)")
                guard pixels[0].values.count == pixels[1].values.count else { continue }
                // Two lossy encodes of two resamplings of one photo.
                #expect(DirectPathTests.difference(pixels[0].values, pixels[1].values).psnr > 30, "\(report.item.name)-\(width)")
            }
        }
        #expect(onDirectPath >= 10, "\(onDirectPath)")
    }
}
