import Foundation
import Testing
import WorkbenchTestSupport

/// No preset crashes the workbench, however long its graph: nothing that walks the graph
/// recurses once per node (the call stack would overflow), and no libvips pipeline grows as
/// deep as the graph (libvips recurses once per stage when it computes pixels).
@Suite struct DeepPresetTests {
    /// read → decode → thumbnail → `flips` × flip → encode → write, as JSON.
    private static func chain(flips: Int, third: String = #"{"op": "thumbnail", "width": 48}"#) -> String {
        var text = #"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, "# + third
        text.reserveCapacity(flips * 32 + 200)
        for i in 0..<flips { text += #", {"id": "f\#(i)", "op": "flip"}"# }
        return text + #", {"op": "encode", "format": "png"}, {"op": "write", "path": "{stem}.png"}]}"#
    }

    @Test func aMillionNodeChainValidatesDrawsAndPlans() throws {
        let folder = try Fixtures.temporaryDirectory("million")
        let preset = try Fixtures.writePreset(Self.chain(flips: 999_995), in: folder)
        let photo = Fixtures.samples.appendingPathComponent("Wine.jpg").path
        // Side by side: each takes most of a minute in a debug build.
        let validate = try CLIProcess(["validate", preset])
        let graph = try CLIProcess(["graph", preset])
        let checked = validate.wait()
        let plan = try CLIProcess(["run", "--dry-run", preset, photo, "--out", folder.path]).wait()
        let drawn = graph.wait()

        #expect(checked.status == 0, "\(checked.stderr.suffix(2000))")
        #expect(checked.lines.first == "\(preset): ok — 1000000 nodes")
        #expect(checked.lines.last == "  … 999960 more lines (workbench graph draws it all)")
        // The shown lines stay short: the indent grows with depth, and only 40 lines are made.
        #expect(checked.lines.allSatisfy { $0.utf8.count < 200 })

        #expect(drawn.status == 0, "\(drawn.stderr.suffix(2000))")
        #expect(drawn.lines.filter { $0.contains(" -> ") }.count == 999_999)
        #expect(drawn.lines.suffix(3) == [#"  "f999994" -> "encode";"#, #"  "encode" -> "write";"#, "}"])

        #expect(plan.status == 0, "\(plan.stderr.suffix(2000))")
        #expect(plan.lines.last == "1 item, 1 file; no collisions.", "\(plan.lines)")
    }

    /// 99,995 flips make one flip: the file is the one a single flip makes.
    @Test func aHundredThousandNodeChainRunsOnOnePhoto() throws {
        let folder = try Fixtures.temporaryDirectory("hundred-thousand")
        let deep = try Fixtures.writePreset(Self.chain(flips: 99_995), in: folder, name: "deep.json")
        let one = try Fixtures.writePreset(Self.chain(flips: 1), in: folder, name: "one.json")
        let photo = Fixtures.samples.appendingPathComponent("Wine.jpg").path
        let ran = try CLIProcess.run(["run", deep, photo, "--out", folder.appendingPathComponent("deep").path])
        #expect(ran.status == 0, "\(ran.stdout.suffix(2000)) \(ran.stderr.suffix(2000))")
        #expect(try CLIProcess.run(["run", one, photo, "--out", folder.appendingPathComponent("one").path]).status == 0)
        let made = try Data(contentsOf: folder.appendingPathComponent("deep/Wine.png"))
        let expected = try Data(contentsOf: folder.appendingPathComponent("one/Wine.png"))
        #expect(!made.isEmpty && made == expected)
    }

    /// A node that fails early skips 100,000 nodes below it, one by one, without recursing.
    @Test func aFailureAtTheTopOfAHundredThousandNodesIsReported() throws {
        let folder = try Fixtures.temporaryDirectory("deep-failure")
        let preset = try Fixtures.writePreset(
            Self.chain(flips: 99_995, third: #"{"op": "crop", "left": 50000, "top": 0, "width": 10, "height": 10}"#), in: folder)
        let out = folder.appendingPathComponent("out")
        let ran = try CLIProcess.run(["run", preset, Fixtures.samples.appendingPathComponent("Wine.jpg").path, "--out", out.path])
        #expect(ran.status == 1, "\(ran.stderr.suffix(2000))")
        #expect(ran.lines.contains { $0.hasPrefix("FAILED  Wine: crop: ") }, "\(ran.lines)")
        #expect(ran.lines.last?.hasPrefix("1 item: 0 succeeded, 1 failed; 0 B written") == true, "\(ran.lines)")
        #expect(Fixtures.files(in: out).isEmpty)
    }
}
