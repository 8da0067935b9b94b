import Testing
import WorkbenchCore
import WorkbenchVips
@testable import WorkbenchServe

/// Lengths in pixels follow the preview copy: before a resize by the copy over the photo, after
/// a resize to T by what the copy is there over T.
@Suite struct PreviewScaleTests {
    private let registry = OpRegistry(CoreOps.all + VipsStages.all)

    private func load(_ graph: String) throws -> Preset {
        try PresetLoader(registry: registry).load(json: Array(#"{"version": 1, "inputs": ["a.jpg"], "graph": \#(graph)}"#.utf8),
                                                  file: "p.json", baseDirectory: "/tmp")
    }

    @Test func lengthsScaleByTheCopyAndThroughResizes() throws {
        let preset = try load("""
            [{"id": "in", "op": "read"}, {"id": "image", "op": "decode"},
             {"id": "soft", "op": "blur", "sigma": 30},
             {"id": "small", "op": "thumbnail", "width": 1000},
             {"id": "sharp", "op": "sharpen", "sigma": 2},
             {"id": "tiny", "op": "thumbnail", "width": 200},
             {"id": "blocks", "op": "pixelate", "size": 16},
             {"id": "jpeg", "op": "encode", "format": "jpeg"}, {"id": "save", "op": "write", "path": "{name}.jpg"}]
            """)
        // A 4000 px photo, a 500 px copy.
        let scaled = PreviewScale.overrides(preset, copy: 500, original: 4000)
        let byNode = Dictionary(uniqueKeysWithValues: scaled.map { ("\($0.node).\($0.key)", $0.to) })
        #expect(byNode["soft.sigma"] == "3.75")        // 30 · 500/4000
        #expect(byNode["sharp.sigma"] == "1.0")        // after the 1000 px thumbnail the copy is 500: 2 · 500/1000
        #expect(byNode["blocks.size"] == nil)          // after the 200 px thumbnail both are 200
        #expect(scaled.count == 2, "\(scaled)")
        // A copy as large as the photo scales nothing.
        #expect(PreviewScale.overrides(preset, copy: 4000, original: 4000).isEmpty)
    }
}
