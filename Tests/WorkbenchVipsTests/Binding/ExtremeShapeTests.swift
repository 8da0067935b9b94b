import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// Strips, banners, single pixels: images of extreme shapes come out right, and whatever
/// libvips asserts on fails one item, never the process.
@Suite struct ExtremeShapeTests {
    /// name, width, height, and the size a 512-wide thumbnail should have.
    static let shapes: [(file: String, width: Int, height: Int, thumbnail: (Int, Int))] = [
        ("strip.jpg", 300, 1, (300, 1)), ("banner.jpg", 4096, 3, (512, 1)), ("post.jpg", 3, 4096, (3, 4096)),
        ("dot.jpg", 1, 1, (1, 1)), ("column.jpg", 1, 300, (1, 300)), ("wide.png", 65500, 2, (512, 1)),
    ]

    private func makeShapes(in harness: PresetHarness) throws -> [String] {
        try Self.shapes.map { shape in
            let path = harness.folder.appendingPathComponent(shape.file).path
            try Fixtures.vips(["black", path, String(shape.width), String(shape.height), "--bands", "3"])
            return path
        }
    }

    @Test func thumbnailAndSepiaOnEveryShape() async throws {
        let harness = try PresetHarness("shapes")
        let inputs = try makeShapes(in: harness)
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "thumbnail", "width": 512},
              {"op": "sepia"}, {"op": "encode", "format": "jpeg"}, {"op": "write", "path": "{name}.jpg"}]}
            """#, inputs: inputs)
        #expect(summary.succeeded == Self.shapes.count, "\(reports.compactMap { $0.failure?.message })")
        for shape in Self.shapes {
            let name = (shape.file as NSString).deletingPathExtension
            let image = try VipsImage.decode(Data(contentsOf: harness.output(name + ".jpg")), origin: name)
            #expect((image.width, image.height) == shape.thumbnail, "\(shape.file)")
        }
    }

    @Test func filtersOnEveryShape() async throws {
        let harness = try PresetHarness("shape-filters")
        let inputs = try makeShapes(in: harness)
        try harness.sample("logo.png")
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [
              {"id": "logo-file", "op": "read", "scope": "run", "path": "logo.png"},
              {"id": "logo", "op": "decode", "scope": "run", "from": "logo-file"},
              {"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "cover", "op": "thumbnail", "width": 100, "height": 100, "fit": "cover", "crop": "attention", "from": "image"},
              {"id": "cover-png", "op": "encode", "format": "png"}, {"id": "w1", "op": "write", "path": "cover-{name}.png"},
              {"id": "smart", "op": "crop", "width": 50, "height": 50, "smart": "entropy", "from": "image"},
              {"id": "tiny", "op": "resize", "scale": 0.001}, {"id": "tint", "op": "tint", "colour": [255, 0, 0]},
              {"id": "marked", "op": "watermark", "overlay": "@logo"},
              {"id": "blurred", "op": "blur", "sigma": 3}, {"id": "sharp", "op": "sharpen"},
              {"id": "small-webp", "op": "encode", "format": "webp"}, {"id": "w2", "op": "write", "path": "small-{name}.webp"}]}
            """#, inputs: inputs)
        #expect(summary.succeeded == Self.shapes.count, "\(reports.compactMap { $0.failure?.message })")
        let dot = try VipsImage.decode(Data(contentsOf: harness.output("small-dot.webp")), origin: "dot")
        #expect((dot.width, dot.height) == (1, 1))
    }

    /// `similarity` with a tiny scale makes libvips assert (a zero-sized image reaching
    /// vips_image_generate): every item fails with that said, and the process goes on.
    @Test func anAssertionInLibvipsFailsTheItemNotTheProcess() async throws {
        let harness = try PresetHarness("assertion")
        let inputs = try makeShapes(in: harness).prefix(2) + [try harness.sample("Bridge.jpg")]
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "vips.similarity", "scale": 0.0001},
              {"op": "encode", "format": "png"}, {"op": "write", "path": "{name}.png"}]}
            """#, inputs: Array(inputs))
        #expect(summary.failed == 3 && summary.exitCode == 1)
        for report in reports {
            #expect(report.failure?.message.contains("libvips similarity stopped on an internal check") == true, "\(report.failure?.message ?? "")")
        }
        // libvips still works afterwards, on this thread and others.
        let (after, afterReports) = try await harness.run(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "vips.similarity", "scale": 0.5},
              {"op": "encode", "format": "png"}, {"op": "write", "path": "after-{name}.png"}]}
            """#, inputs: Array(inputs))
        #expect(after.succeeded == 3, "\(afterReports.compactMap { $0.failure?.message })")
    }
}
