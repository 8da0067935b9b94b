import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// The friendly filters, run from presets on a real photo; each checked by what it must do to
/// the pixels.
@Suite struct FilterTests {
    private typealias Image = WorkbenchVips.VipsImage

    /// Runs `filter` (a node's JSON) between a decode of Bridge.jpg shrunk to 320×180 and a PNG
    /// encode; returns the original and the result.
    private func apply(_ filter: String, extraNodes: String = "") async throws -> (before: Image, after: Image) {
        let harness = try PresetHarness("filter")
        let input = try harness.sample("Bridge.jpg")
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [\#(extraNodes){"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "small", "op": "thumbnail", "width": 320}, \#(filter),
              {"id": "png", "op": "encode", "format": "png"}, {"id": "save", "op": "write", "path": "after.png"},
              {"id": "png0", "op": "encode", "format": "png", "from": "small"}, {"id": "save0", "op": "write", "path": "before.png"}]}
            """#, inputs: [input])
        #expect(summary.succeeded == 1, "\(reports.map { $0.failure?.message ?? "" })")
        func read(_ name: String) throws -> Image { try Image.decode(Data(contentsOf: harness.output(name)), origin: name) }
        return (try read("before.png"), try read("after.png"))
    }

    /// Runs a measuring operation (getpoint, deviate, …) and returns its output `name`.
    private func measure(_ nick: String, _ image: Image, _ arguments: [String: VipsArgumentValue] = [:], output name: String) throws -> Any? {
        let info = try #require(VipsIntrospection.operations[nick])
        let main = try #require(info.mainInput)
        var all: [(VipsArgumentInfo, VipsArgumentValue)] = [(main, .image(image))]
        for (key, value) in arguments {
            let argument = try #require(info.arguments.first { $0.name == key })
            all.append((argument, value))
        }
        return try VipsOperationCall.run(info, all).values[name]
    }

    private func pixel(_ image: Image, _ x: Int, _ y: Int) throws -> [Double] {
        let values = try measure("getpoint", image, ["x": .int(x), "y": .int(y)], output: "out_array")
        return try #require(values as? [Double])
    }

    private func deviation(_ image: Image) throws -> Double {
        let value = try measure("deviate", image, output: "out")
        return try #require(value as? Double)
    }

    @Test func cropByGravityPositionAndInterest() async throws {
        let (before, corner) = try await apply(#"{"op": "crop", "width": 100, "height": 50, "gravity": "south-east"}"#)
        #expect((corner.width, corner.height) == (100, 50))
        #expect(try pixel(corner, 99, 49) == pixel(before, 319, 179))
        let (_, placed) = try await apply(#"{"op": "crop", "width": 100, "height": 50, "left": 10, "top": 20}"#)
        #expect(try pixel(placed, 0, 0) == pixel(before, 10, 20))
        let (_, smart) = try await apply(#"{"op": "crop", "width": 120, "height": 120, "smart": "attention"}"#)
        #expect((smart.width, smart.height) == (120, 120))
        // A box larger than the image is clipped to it.
        let (_, whole) = try await apply(#"{"op": "crop", "width": 5000, "height": 5000}"#)
        #expect((whole.width, whole.height) == (320, 180))
    }

    @Test func rotateAndFlip() async throws {
        let (before, quarter) = try await apply(#"{"op": "rotate", "angle": 90}"#)
        #expect((quarter.width, quarter.height) == (180, 320))
        #expect(try pixel(quarter, 179, 0) == pixel(before, 0, 0))
        let (_, tilted) = try await apply(#"{"op": "rotate", "angle": 30}"#)
        #expect(tilted.width > 320 && tilted.height > 180)
        let (_, mirrored) = try await apply(#"{"op": "flip"}"#)
        #expect(try pixel(mirrored, 0, 0) == pixel(before, 319, 0))
        let (_, upsideDown) = try await apply(#"{"op": "flip", "direction": "vertical"}"#)
        #expect(try pixel(upsideDown, 0, 0) == pixel(before, 0, 179))
    }

    @Test func blurSoftensAndSharpenCrisps() async throws {
        let (before, blurred) = try await apply(#"{"op": "blur", "sigma": 4}"#)
        let (_, sharpened) = try await apply(#"{"op": "vips.colourspace", "space": "srgb"}, {"op": "sharpen", "sigma": 1, "amount": 6}"#)
        let edges = { (image: Image) throws -> Double in
            try deviation(VipsOperationCall.image("conv", VipsOperationCall.image("colourspace", image, ["space": .string("b-w")]),
                                                  ["mask": .image(VipsOperationCall.matrix([[0, -1, 0], [-1, 4, -1], [0, -1, 0]]))]))
        }
        #expect(try edges(blurred) < edges(before) / 2)
        #expect(try edges(sharpened) > edges(before) * 1.2)
    }

    @Test func tonesAndColours() async throws {
        let (before, grey) = try await apply(#"{"op": "grayscale"}"#)
        #expect(grey.bands == 1)
        let (_, darker) = try await apply(#"{"op": "brightness", "amount": 0.5}"#)
        #expect(abs(try darker.average() - before.average() / 2) < 1)
        let (_, flat) = try await apply(#"{"op": "contrast", "amount": 0}"#)
        #expect(try deviation(flat) == 0 && flat.average() == 128)
        let (_, punchy) = try await apply(#"{"op": "contrast", "amount": 1.5}"#)
        #expect(try deviation(punchy) > deviation(before) * 1.3)
        let (_, washed) = try await apply(#"{"op": "saturation", "amount": 0}"#)
        let means = try washed.bandMeans()
        #expect(abs(means[0] - means[1]) < 1.5 && abs(means[1] - means[2]) < 1.5, "\(means)")
        let (_, lifted) = try await apply(#"{"op": "gamma", "gamma": 2}"#)
        #expect(try lifted.average() > before.average() + 20)
        let (_, red) = try await apply(#"{"op": "tint", "colour": [255, 60, 0]}"#)
        let tinted = try red.bandMeans()
        #expect(tinted[0] > tinted[1] * 2 && tinted[1] > tinted[2], "\(tinted)")
    }

    @Test func watermarkSitsInTheCornerAtItsOpacity() async throws {
        let logo = #"{"id": "logo", "op": "vips.black", "scope": "run", "width": 40, "height": 20, "bands": 3}, "#
        let (before, marked) = try await apply(#"{"op": "watermark", "overlay": "@logo", "margin": 5}"#, extraNodes: logo)
        // A black box 40×20, 5 px from the bottom-right corner; the rest untouched.
        #expect(try pixel(marked, 320 - 5 - 1, 180 - 5 - 1) == [0, 0, 0])
        #expect(try pixel(marked, 320 - 5 - 40, 180 - 5 - 20) == [0, 0, 0])
        #expect(try pixel(marked, 0, 0) == pixel(before, 0, 0))
        let (_, faint) = try await apply(#"{"op": "composite", "overlay": "@logo", "gravity": "north-west", "margin": 0, "opacity": 0.5}"#,
                                         extraNodes: logo)
        let original = try pixel(before, 10, 10), half = try pixel(faint, 10, 10)
        for band in 0..<3 { #expect(abs(half[band] - original[band] / 2) <= 1.5, "\(half) vs \(original)") }
    }

    @Test func aWatermarkSizedRelativeToTheImageOrScaledByAFactor() async throws {
        let logo = #"{"id": "logo", "op": "vips.black", "scope": "run", "width": 40, "height": 20, "bands": 3}, "#
        // A quarter of the 320 px image's width: 80×40, 5 px from the corner.
        let (before, quarter) = try await apply(#"{"op": "watermark", "overlay": "@logo", "margin": 5, "size": 0.25}"#, extraNodes: logo)
        #expect(quarter.width == 320)
        #expect(try pixel(quarter, 320 - 5 - 80, 180 - 5 - 40) == [0, 0, 0])
        #expect(try pixel(quarter, 320 - 5 - 80 - 3, 180 - 5 - 20) == pixel(before, 320 - 5 - 80 - 3, 180 - 5 - 20))
        #expect(try pixel(quarter, 320 - 5 - 40, 180 - 5 - 40 - 3) == pixel(before, 320 - 5 - 40, 180 - 5 - 40 - 3))
        // Text from vips.text (one band, a mask) is white on nothing: it only brightens.
        let text = #"{"id": "credit", "op": "vips.text", "scope": "run", "text": "© 2026 Ana", "dpi": 150}, "#
        let (_, credited) = try await apply(#"{"op": "watermark", "overlay": "@credit", "size": 0.5}"#, extraNodes: text)
        #expect(try credited.average() > before.average() + 0.5 && credited.bands == before.bands)
        // Half its own size: 20×10.
        let (_, half) = try await apply(#"{"op": "watermark", "overlay": "@logo", "margin": 5, "scale": 0.5}"#, extraNodes: logo)
        #expect(try pixel(half, 320 - 5 - 20, 180 - 5 - 10) == [0, 0, 0])
        #expect(try pixel(half, 320 - 5 - 40, 180 - 5 - 20) == pixel(before, 320 - 5 - 40, 180 - 5 - 20))
    }

    @Test func combinationsAreCheckedAtLoad() throws {
        let harness = try PresetHarness("filter-checks")
        func errors(_ node: String) -> String {
            harness.errors(#"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, \#(node)]}"#).joined(separator: "\n")
        }
        #expect(errors(#"{"op": "crop", "width": 10, "height": 10, "left": 3}"#).contains(#"crop: give both "left" and "top", or neither"#))
        #expect(errors(#"{"op": "tint", "colour": [1, 2]}"#).contains(#"tint: "colour" needs three numbers"#))
        #expect(errors(#"{"op": "thumbnail", "width": 10, "fit": "cover"}"#).contains(#"fit "cover" needs both "width" and "height""#))
        #expect(errors(#"{"op": "watermark"}"#).contains(#"missing required parameter "overlay""#))
        let both = try harness.load(#"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "watermark", "overlay": "@decode", "size": 0.2, "scale": 2}, {"op": "encode", "format": "png"}, {"op": "write", "path": "a.png"}]}"#)
        #expect(both.warnings.map(\.message).contains(#""scale" is unused when "size" is given; remove one"#), "\(both.warnings)")
    }
}
