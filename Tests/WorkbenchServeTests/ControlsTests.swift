import Testing
import WorkbenchCore
import WorkbenchVips
@testable import WorkbenchServe

/// The page's controls come from the ops' declarations: a kind per parameter type, the value in
/// the file or the page's unsaved one, and nothing for paths, templates or references.
@Suite struct ControlsTests {
    private let registry = OpRegistry(CoreOps.all + VipsStages.all)

    @Test func eachParameterGetsTheControlItsTypeCallsFor() throws {
        let preset = try PresetLoader(registry: registry).load(json: Array(#"""
            {"version": 1, "inputs": ["a.jpg"], "graph": [
              {"id": "in", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "tone", "op": "sepia", "intensity": 0.4},
              {"id": "flat", "op": "posterize", "levels": 6},
              {"id": "mirror", "op": "flip"},
              {"id": "jpeg", "op": "encode", "format": "jpeg", "Q": 80},
              {"id": "save", "op": "write", "path": "{name}.jpg"}]}
            """#.utf8), file: "p.json", baseDirectory: "/tmp")
        let draft = [try #require(PresetOverride("tone.intensity=0.9"))]
        let panels = Controls.of(preset, draft: draft)
        #expect(panels.map(\.node) == ["tone", "flat", "mirror", "jpeg"])
        let intensity = try #require(panels.first?.controls.first { $0.name == "intensity" })
        #expect(intensity.type == "number" && intensity.min == 0 && intensity.max == 1 && intensity.value == "0.9" && intensity.changed)
        let levels = try #require(panels[1].controls.first { $0.name == "levels" })
        #expect(levels.type == "integer" && levels.value == "6" && !levels.changed)
        #expect(panels[2].controls.first { $0.name == "direction" }?.type == "choice")
        // encode knows every format's options: those the preset sets (and those without a
        // default) are shown, not the rest.
        let encoder = Set(panels[3].controls.map(\.name))
        #expect(encoder.isSuperset(of: ["format", "Q"]) && !encoder.contains("interlace") && encoder.count <= 12, "\(encoder)")
        #expect(Controls.offers(preset, node: "tone", key: "intensity"))
        #expect(!Controls.offers(preset, node: "save", key: "path") && !Controls.offers(preset, node: "in", key: "path"))
    }
}
