import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// libvips operations through presets give what the `vips` command-line tool (Debian's
/// `libvips-tools`) gives for the same operation and arguments.
///
/// Both write PNG (lossless) from the same JPEG, so the images should be identical: the
/// tolerance is a mean absolute difference of at most 0.01 and a largest difference of at most 1
/// (one step of rounding) per sample.
@Suite struct GoldenTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let node: String
        let cli: [String]
        var testDescription: String { cli[0] }
    }

    static let cases = [
        Case(node: #"{"op": "vips.gaussblur", "sigma": 2}"#, cli: ["gaussblur", "2"]),
        Case(node: #"{"op": "vips.sharpen", "sigma": 1.5, "m2": 4}"#, cli: ["sharpen", "--sigma", "1.5", "--m2", "4"]),
        Case(node: #"{"op": "vips.resize", "scale": 0.37}"#, cli: ["resize", "0.37"]),
        Case(node: #"{"op": "vips.rot", "angle": "d90"}"#, cli: ["rot", "d90"]),
        Case(node: #"{"op": "vips.flip", "direction": "horizontal"}"#, cli: ["flip", "horizontal"]),
        Case(node: #"{"op": "vips.colourspace", "space": "b-w"}"#, cli: ["colourspace", "b-w"]),
        Case(node: #"{"op": "vips.invert"}"#, cli: ["invert"]),
        Case(node: #"{"op": "vips.linear", "a": 1.2, "b": 10, "uchar": true}"#, cli: ["linear", "1.2", "10", "--uchar"]),
        Case(node: #"{"op": "vips.extract_area", "left": 100, "top": 50, "width": 400, "height": 300}"#,
             cli: ["extract_area", "100", "50", "400", "300"]),
        Case(node: #"{"op": "vips.embed", "x": 20, "y": 20, "width": 1700, "height": 1000, "extend": "mirror"}"#,
             cli: ["embed", "20", "20", "1700", "1000", "--extend", "mirror"]),
        Case(node: #"{"op": "vips.smartcrop", "width": 400, "height": 400, "interesting": "attention"}"#,
             cli: ["smartcrop", "400", "400", "--interesting", "attention"]),
        Case(node: #"{"op": "vips.thumbnail_image", "width": 300, "height": 200, "crop": "centre"}"#,
             cli: ["thumbnail_image", "300", "--height", "200", "--crop", "centre"]),
        Case(node: #"{"op": "vips.hist_equal"}"#, cli: ["hist_equal"]),
        Case(node: #"{"op": "vips.gamma", "exponent": 1.8}"#, cli: ["gamma", "--exponent", "1.8"]),
    ]

    /// The `vips` tool, or nil.
    private static let vipsTool = ["/usr/bin/vips", "/usr/local/bin/vips"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(arguments: cases)
    func matchesTheVipsCommandLine(_ golden: Case) async throws {
        let tool = try #require(Self.vipsTool, "the golden tests need the vips command-line tool: apt-get install libvips-tools")
        let harness = try PresetHarness("golden")
        let input = try harness.sample("Bridge.jpg")
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, \#(golden.node),
              {"op": "encode", "format": "png"}, {"op": "write", "path": "ours.png"}]}
            """#, inputs: [input])
        #expect(summary.succeeded == 1, "\(reports.map { $0.failure?.message ?? "" })")

        let theirs = harness.folder.appendingPathComponent("theirs.png").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = [golden.cli[0], input, theirs] + golden.cli.dropFirst()
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        let ours = try VipsImage.decode(Data(contentsOf: harness.output("ours.png")), origin: "ours")
        let reference = try VipsImage.decode(Data(contentsOf: URL(fileURLWithPath: theirs)), origin: "theirs")
        #expect((ours.width, ours.height, ours.bands) == (reference.width, reference.height, reference.bands))
        let difference = try VipsOperationCall.image("abs", VipsOperationCall.image("subtract", ours, ["right": .image(reference)]))
        let info = try #require(VipsIntrospection.operations["max"])
        let largest = try VipsOperationCall.run(info, [(try #require(info.mainInput), .image(difference))]).values["out"] as? Double
        #expect(try difference.average() <= 0.01)
        #expect((largest ?? .infinity) <= 1)
    }
}
