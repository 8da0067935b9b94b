import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// CPU stages report progress as downloads do: the encode, which computes the pixels of the
/// whole pipeline above it, reports pixels done of pixels in all.
@Suite struct ProgressTests {
    @Test func theEncodeReportsPixelsAsTheyAreComputed() async throws {
        let harness = try PresetHarness("progress")
        let input = try harness.sample("Bridge.jpg")
        let preset = try harness.load(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"},
              {"op": "thumbnail", "width": 3000, "upscale": true}, {"op": "boxBlur", "radius": 9},
              {"op": "encode", "format": "png"}, {"op": "write", "path": "big.png"}]}
            """#)
        let items = try InputExpansion.expand([input], relativeTo: harness.folder.path)
        let run = PresetRun.start(preset, items: .list(items), output: try OutputRoot(harness.folder.appendingPathComponent("out").path),
                                  options: RunOptions(eventDetail: .nodes))
        var pixels: [ProgressEvent] = []
        for await event in run.events {
            if case .progress(let progress) = event, progress.unit == .pixels { pixels.append(progress) }
        }
        #expect(await run.result.succeeded == 1)
        #expect(pixels.count >= 10, "\(pixels.count) progress events")
        #expect(pixels.allSatisfy { $0.node == "encode" })
        let dones = pixels.map(\.bytes)
        #expect(dones == dones.sorted())
        // 3000 wide, at Bridge.jpg's aspect ratio.
        let total = try #require(pixels.last?.expectedBytes)
        #expect(total > 3000 * 1500 && total < 3000 * 2500)
        #expect(try #require(pixels.last).bytes <= total)
    }
}

