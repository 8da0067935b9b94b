import Foundation
import Testing
import WorkbenchCore
import WorkbenchNet
import WorkbenchTestSupport
import WorkbenchVips

/// The README's library example, as written there (with a temporary output folder).
@Suite struct LibraryExampleTests {
    @Test func theReadmeExampleRuns() async throws {
        let out = try Fixtures.temporaryDirectory("library")
        let registry = OpRegistry(CoreOps.all + NetOps.all + VipsOps.all)
        let preset = try PresetLoader(registry: registry).load(file: Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path)
        let run = PresetRun.start(preset, items: try InputExpansion.source(of: preset), output: try OutputRoot(out.path),
                                  options: RunOptions(failFast: false, eventDetail: .items))
        let reporter = Task {
            var names: [String] = []
            for await event in run.events {
                if case .itemFinished(let report) = event { names.append(report.item.name) }
            }
            return names
        }
        run.suspend(queue: "disk")
        run.resume(queue: "disk")
        let summary = await run.result
        let names = await reporter.value
        #expect(summary.succeeded == 6 && summary.items == 6 && summary.exitCode == 0)
        #expect(names.sorted() == ["Bridge", "Picture_0B", "Wine", "aitzgorri", "seeding", "sunset"])
        #expect(Fixtures.files(in: out).count == 6)
    }

    @Test func aPresetLoadsFromAString() throws {
        let registry = OpRegistry(CoreOps.all + NetOps.all + VipsOps.all)
        let text = #"{ "version": 1, "inputs": ["a.jpg"], "graph": [ { "id": "r", "op": "read" } ] }"#
        let inline = try PresetLoader(registry: registry).load(json: Array(text.utf8), file: "<inline>", baseDirectory: "/photos")
        #expect(inline.nodes.map(\.id) == ["r"])
        #expect(throws: WorkbenchError.self) { try PresetLoader(registry: registry).load(json: Array("{".utf8), file: "<inline>", baseDirectory: "/") }
    }
}
