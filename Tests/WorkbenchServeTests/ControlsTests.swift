import Testing
import WorkbenchCore
import WorkbenchVips
@testable import WorkbenchServe

/// The page's controls come from the ops' declarations: a kind per parameter type, the value in
/// the file or the page's unsaved one, and nothing for paths, templates or references.
@Suite struct ControlsTests {
    private let registry = OpRegistry(CoreOps.all + VipsOps.all)

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

    /// Colours are declared, not guessed from a name: a tint's `colour` and a libvips
    /// operation's `background` get the colour picker; other number lists a list field.
    @Test func colourParametersAreDeclaredAsColours() throws {
        let preset = try PresetLoader(registry: registry).load(json: Array(#"""
            {"version": 1, "inputs": ["a.jpg"], "graph": [
              {"id": "in", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "tinted", "op": "tint", "colour": [200, 120, 40]},
              {"id": "framed", "op": "vips.embed", "x": 4, "y": 4, "width": 300, "height": 300, "extend": "background", "background": [255, 0, 0]},
              {"id": "lin", "op": "vips.linear", "a": [1.1, 1.0, 0.9], "b": [0, 0, 0]},
              {"id": "jpeg", "op": "encode", "format": "jpeg"},
              {"id": "save", "op": "write", "path": "{name}.jpg"}]}
            """#.utf8), file: "p.json", baseDirectory: "/tmp")
        let panels = Controls.of(preset, draft: [])
        let colour = try #require(panels.first { $0.node == "tinted" }?.controls.first { $0.name == "colour" })
        #expect(colour.type == "colour" && colour.control == .colour && colour.value == "[200.0, 120.0, 40.0]")
        let background = try #require(panels.first { $0.node == "framed" }?.controls.first { $0.name == "background" })
        #expect(background.type == "colour" && background.control == .colour)
        let factors = try #require(panels.first { $0.node == "lin" }?.controls.first { $0.name == "a" })
        #expect(factors.type == "numbers" && factors.control == .list)
        #expect(NodeControls.json(panels).contains(#""type": "colour", "control": "colour""#))
    }

    @Test func slidersCoverTheUsefulRangeAndUnsetValuesSayWhatApplies() throws {
        let preset = try PresetLoader(registry: registry).load(json: Array(#"""
            {"version": 1, "inputs": ["a.jpg"], "graph": [
              {"id": "credit", "op": "vips.text", "scope": "run", "text": "© Ana", "dpi": 150},
              {"id": "in", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "vivid", "op": "saturation", "amount": 1.1},
              {"id": "big", "op": "thumbnail", "width": 1920},
              {"id": "tone", "op": "sepia", "intensity": 0.4},
              {"id": "marked", "op": "watermark", "overlay": "@credit", "margin": 12},
              {"id": "jpeg", "op": "encode", "format": "jpeg"},
              {"id": "save", "op": "write", "path": "{name}.jpg"}]}
            """#.utf8), file: "p.json", baseDirectory: "/tmp")
        let panels = Controls.of(preset, draft: [])
        func control(_ node: String, _ name: String) -> NodeControls.Control? {
            panels.first { $0.node == node }?.controls.first { $0.name == name }
        }
        // A factor: 0 at the left, 1 in the middle, 4 at the right (its declared 0…10 in the field).
        #expect(control("vivid", "amount")?.slider == .init(low: 0, high: 4, centre: 1))
        #expect(control("vivid", "engine") == nil)
        // Already a useful range: all of it.
        #expect(control("tone", "intensity")?.slider == .init(low: 0, high: 1, centre: nil))
        // Pixels out of 0…100000: around the value.
        #expect(control("marked", "margin")?.slider == .init(low: 0, high: 48, centre: nil))
        // A size of hundreds of pixels: half to twice it, the value in the middle.
        #expect(control("big", "width")?.slider == .init(low: 960, high: 3840, centre: 1920))
        // The watermark's text is on the page; what the preset leaves unset says what applies.
        #expect(control("credit", "text")?.value == #""© Ana""#)
        let opacity = try #require(control("marked", "opacity"))
        #expect(opacity.value == "1.0" && opacity.unset == "1.0", "\(opacity)")
        let left = try #require(control("marked", "left"))
        #expect(left.value == "null" && left.unset == nil)
        // Unset, no default, a huge range of pixels: a track of a useful size.
        #expect(left.slider == .init(low: -1000, high: 1000, centre: nil))
    }

    /// A parameter written as a foreach variable has a control per value of it; a change reaches
    /// every copy made with that value, as Save's change to the foreach list will.
    @Test func aVariableParameterHasAControlPerValueReachingEveryCopyWithIt() throws {
        let preset = try PresetLoader(registry: registry).load(json: Array(#"""
            {"version": 1, "inputs": ["a.jpg"], "graph": [
              {"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "resized", "op": "thumbnail", "width": "{w}", "foreach": {"w": [480, 960, 1920]}},
              {"id": "encoded", "op": "encode", "format": "{fmt}", "Q": 80, "foreach": {"fmt": ["webp", "jpeg"]}},
              {"id": "save", "op": "write", "path": "{name}-{w}.{fmt}"}]}
            """#.utf8), file: "p.json", baseDirectory: "/tmp")
        let panels = Controls.of(preset, draft: [])
        let formats = try #require(panels.first { $0.node == "encoded" }).controls.filter { $0.name == "format" }
        #expect(formats.map(\.copy) == ["fmt = webp, 3 copies", "fmt = jpeg, 3 copies"] && formats.map(\.node) == ["encoded-480-webp", "encoded-480-jpeg"])
        #expect(panels.first { $0.node == "encoded" }?.controls.filter { $0.name == "Q" }.map(\.node) == [nil])
        let widths = try #require(panels.first { $0.node == "resized" }).controls.filter { $0.name == "width" }
        #expect(widths.map(\.copy) == ["w = 480", "w = 960", "w = 1920"])
        // The change on one copy reaches the three made with webp, and no other.
        let change = try #require(PresetOverride(#"encoded-480-webp.format="avif""#))
        #expect(Controls.overrides([change], in: preset).map(\.node) == ["encoded-480-webp", "encoded-960-webp", "encoded-1920-webp"])
        #expect(Controls.offers(preset, node: "encoded-960-webp", key: "format") && !Controls.offers(preset, node: "encoded", key: "format"))
        let value = try #require(Controls.repetitionValue(preset, node: "encoded-960-webp", key: "format"))
        #expect(value.name == "fmt" && value.json == #""webp""# && value.declaredBy == "encoded" && value.index == 0)
    }
}
