import Foundation
import Testing
import WorkbenchCore
import WorkbenchVips
@testable import WorkbenchServe

/// Lengths in pixels follow the preview copy: before a resize by the copy over the photo, after
/// a resize to T by what the copy is there over T.
@Suite struct PreviewScaleTests {
    private let registry = OpRegistry(CoreOps.all + VipsOps.all)

    /// A folder with the logo the watermark presets name (files a preset names are checked).
    private static let folder: String = {
        let folder = NSTemporaryDirectory() + "workbench-preview-scale-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/logo.png", contents: Data())
        return folder
    }()

    private func load(_ graph: String) throws -> Preset {
        try PresetLoader(registry: registry).load(json: Array(#"{"version": 1, "inputs": ["a.jpg"], "graph": \#(graph)}"#.utf8),
                                                  file: "p.json", baseDirectory: Self.folder)
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

    /// A logo or text laid by `watermark` has its own pixels: on a copy it is made smaller by the
    /// copy's scale, so it covers as much of the preview as of the file. One sized relative to
    /// the image needs nothing.
    @Test func aWatermarksOverlayShrinksWithTheCopy() throws {
        let graph = """
            [{"id": "logo-file", "op": "read", "scope": "run", "path": "logo.png"},
             {"id": "logo", "op": "decode", "scope": "run", "from": "logo-file"},
             {"id": "in", "op": "read"}, {"id": "image", "op": "decode"},
             {"id": "fit", "op": "thumbnail", "width": 1200},
             {"id": "marked", "op": "watermark", "overlay": "@logo", "margin": 12%@},
             {"id": "jpeg", "op": "encode", "format": "jpeg"}, {"id": "save", "op": "write", "path": "{name}.jpg"}]
            """
        let fixed = PreviewScale.overrides(try load(graph.replacingOccurrences(of: "%@", with: "")), copy: 512, original: 4000)
        let byNode = Dictionary(uniqueKeysWithValues: fixed.map { ("\($0.node).\($0.key)", $0.to) })
        #expect(byNode["marked.scale"] == "0.427" && byNode["marked.margin"] == "5", "\(fixed)")    // 512/1200
        let relative = PreviewScale.overrides(try load(graph.replacingOccurrences(of: "%@", with: #", "size": 0.2"#)), copy: 512, original: 4000)
        #expect(!relative.contains { $0.key == "scale" || $0.key == "size" }, "\(relative)")
    }

    /// A `cover` box larger than the copy keeps its framing: the box shrinks by the copy's
    /// scale (a landscape 4352×2448 photo, a 512×288 copy: 480×320 → 432×288, the same crop),
    /// and the watermark after it scales with it. A box the copy covers is left alone.
    @Test func aCoverBoxLargerThanTheCopyKeepsItsFraming() throws {
        let preset = try load("""
            [{"id": "in", "op": "read"}, {"id": "image", "op": "decode"},
             {"id": "fit", "op": "thumbnail", "width": 480, "height": 320, "fit": "cover"},
             {"id": "soft", "op": "blur", "sigma": 10},
             {"id": "jpeg", "op": "encode", "format": "jpeg"}, {"id": "save", "op": "write", "path": "{name}.jpg"}]
            """)
        let landscape = PreviewScale.overrides(preset, copy: .init(width: 512, height: 288), original: .init(width: 4352, height: 2448))
        var byNode = Dictionary(uniqueKeysWithValues: landscape.map { ("\($0.node).\($0.key)", $0.to) })
        #expect(byNode["fit.width"] == "432" && byNode["fit.height"] == "288", "\(landscape)")
        #expect(byNode["soft.sigma"] == "9.0", "\(landscape)")
        let portrait = PreviewScale.overrides(preset, copy: .init(width: 288, height: 512), original: .init(width: 2448, height: 4352))
        byNode = Dictionary(uniqueKeysWithValues: portrait.map { ("\($0.node).\($0.key)", $0.to) })
        #expect(byNode["fit.width"] == "288" && byNode["fit.height"] == "192", "\(portrait)")
        // A copy that covers the box: the file's own box.
        #expect(PreviewScale.overrides(preset, copy: .init(width: 1024, height: 576), original: .init(width: 4352, height: 2448)).isEmpty)
    }

    /// A change to one copy shows on the cards through a file it leads to, not the first file
    /// the item writes (which the change may leave as it was).
    @Test func aCardShowsAFileTheChangeLeadsTo() throws {
        let preset = try load("""
            [{"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
             {"id": "resized", "op": "thumbnail", "width": "{w}", "foreach": {"w": [480, 960]}},
             {"id": "encoded", "op": "encode", "format": "{fmt}", "foreach": {"fmt": ["jpeg", "webp"]}},
             {"id": "save", "op": "write", "path": "{name}-{w}.{fmt}"}]
            """)
        #expect(DraftPreviews.writes(downstreamOf: ["encoded-960-webp"], in: preset) == ["save-960-webp"])
        #expect(DraftPreviews.writes(downstreamOf: ["resized-480"], in: preset) == ["save-480-jpeg", "save-480-webp"])
        #expect(DraftPreviews.writes(downstreamOf: ["encoded"], in: preset).count == 4)
    }
}
