import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// The libvips binding: every operation found by introspection, validated from presets and run
/// through the generic call on real images.
@Suite struct VipsOperationTests {
    private func preset(for spec: OpSpec, override: (name: String, json: String)? = nil) -> String {
        PresetHarness.preset(for: spec, override: override)
    }

    private var vipsSpecs: [OpSpec] { VipsOperationOps.all.map(\.spec) }

    @Test func everyOperationIsOfferedOrExplained() throws {
        let operations = VipsIntrospection.operations
        #expect(operations.count >= 300)
        #expect(VipsOperationOps.all.count + VipsOperationOps.unavailable.count == operations.count)
        for (name, reason) in VipsOperationOps.unavailable {
            let nick = String(name.dropFirst("vips.".count))
            let info = try #require(operations[nick])
            #expect(info.arguments.contains { $0.kind.isStream } || info.isSaver || nick == "system", "\(name): \(reason)")
        }
        let composite = try #require(operations["composite2"])
        #expect(composite.mainInput?.name == "base")
        #expect(composite.arguments.map(\.name).starts(with: ["base", "overlay", "out", "mode"]))
    }

    @Test func theProviderKnowsItsNamesWithoutStartingLibvips() throws {
        // The names it claims from the name alone are exactly the module's non-libvips ops.
        let builtIn = Set(VipsOps.all.map(\.spec.name).filter { !$0.hasPrefix("vips.") })
        #expect(builtIn == VipsOps.builtInNames)
        let registry = OpRegistry(CoreOps.all, providers: [VipsOps.provider])
        #expect(registry["vips.gaussblur"]?.spec.name == "vips.gaussblur" && registry["watermark"] != nil)
        #expect(registry["read"] != nil && registry["nonsense"] == nil)
        #expect(registry.unavailableReason("vips.jpegsave")?.contains("filename") == true)
        #expect(registry.names.count == CoreOps.all.count + VipsOps.all.count)
    }

    @Test func everyOfferedOperationValidatesWithItsRequiredArguments() throws {
        let harness = try PresetHarness("every-op")
        // The file a loader's `filename` names must be in the preset's folder when it is checked.
        try Data().write(to: harness.folder.appendingPathComponent("x"))
        var failures: [String] = []
        for spec in vipsSpecs {
            let errors = harness.errors(preset(for: spec))
            if !errors.isEmpty { failures.append("\(spec.name): \(errors.joined(separator: " / "))") }
        }
        #expect(failures.isEmpty, "\(failures.count) ops failed validation:\n\(failures.joined(separator: "\n"))")
        #expect(vipsSpecs.count > 250)
    }

    @Test func aWrongTypeFailsWithItsJSONPath() throws {
        let harness = try PresetHarness("wrong-type")
        var checked = 0
        for spec in vipsSpecs {
            guard let parameter = spec.parameters.first(where: { $0.isRequired }) ?? spec.parameters.first else { continue }
            let wrong: String
            switch parameter.type {
            case .string: wrong = "42"
            case .bool: wrong = "\"yes\""
            default: wrong = "{\"no\": 1}"
            }
            let errors = harness.errors(preset(for: spec, override: (parameter.name, wrong)))
            #expect(errors.contains { $0.contains("error: graph[2].\(parameter.name): expected") }, "\(spec.name).\(parameter.name): \(errors)")
            checked += 1
        }
        #expect(checked > 200)
    }

    @Test func namesAreCheckedWithSuggestions() throws {
        let harness = try PresetHarness("names")
        func errors(_ node: String) -> String {
            harness.errors(#"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, \#(node)]}"#).joined(separator: "\n")
        }
        #expect(errors(#"{"op": "vips.gausblur", "sigma": 2}"#).contains(#"unknown op "vips.gausblur"; did you mean "vips.gaussblur"?"#))
        #expect(errors(#"{"op": "vips.gaussblur", "sigm": 2}"#).contains(#"unknown parameter "sigm" for op "vips.gaussblur"; did you mean "sigma"?"#))
        #expect(errors(#"{"op": "vips.gaussblur"}"#).contains(#"graph[2].sigma: missing required parameter "sigma""#))
        #expect(errors(#"{"op": "vips.gaussblur", "sigma": 2, "precision": "integr"}"#).contains(#"did you mean "integer"?"#))
        #expect(errors(#"{"op": "vips.jpegsave", "filename": "/tmp/x.jpg"}"#).contains("cannot be used in a preset: it writes a file"))
        #expect(errors(#"{"op": "vips.jpegload_source"}"#).contains("cannot be used in a preset"))
        // libvips' own spelling with '-' is accepted as well as '_'.
        #expect(errors(#"{"op": "vips.composite2", "overlay": "@decode", "mode": "over", "compositing-space": "srgb"}"#).isEmpty)
    }

    @Test func deprecatedArgumentsWarn() throws {
        let harness = try PresetHarness("deprecated")
        let preset = try harness.load(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"},
              {"op": "vips.jpegsave_buffer", "no_subsample": true}, {"op": "write", "path": "{name}.jpg"}]}
            """#)
        #expect(preset.warnings.map(\.description).contains { $0.contains("graph[2].no_subsample: parameter \"no_subsample\" of \"vips.jpegsave_buffer\" is deprecated") })
    }

    /// libvips 8.14 still flags reduce's deprecated `xshrink`/`yshrink` required, but builds
    /// without them: a preset gives `hshrink`/`vshrink` alone (it was refused: "missing
    /// required parameter xshrink").
    @Test func aDeprecatedArgumentLibvipsFlagsRequiredIsNotAskedFor() async throws {
        let spec = try #require(vipsSpecs.first { $0.name == "vips.reduce" })
        #expect(spec.parameters.first { $0.name == "xshrink" }?.isRequired == false)
        #expect(spec.parameters.first { $0.name == "hshrink" }?.isRequired == true)
        let harness = try PresetHarness("vips-reduce")
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"},
              {"op": "vips.reduce", "hshrink": 4, "vshrink": 2}, {"op": "encode", "format": "png"}, {"op": "write", "path": "small.png"}]}
            """#, inputs: [try harness.sample("Bridge.jpg")])
        #expect(summary.succeeded == 1, "\(reports.map { $0.failure?.message ?? "" })")
        let small = try Image.decode(Data(contentsOf: harness.output("small.png")), origin: "small")
        #expect((small.width, small.height) == (400, 450))
    }

    @Test func argumentsTheCallDoesNotSetAreRefusedBeforeLibvipsSeesThem() throws {
        // libvips aborts the process when an operation is built with a required input unset.
        let info = try #require(VipsIntrospection.operations["gaussblur"])
        #expect(throws: VipsError.self) { try VipsOperationCall.run(info, []) }
    }

    @Test func imageListsFromReferencesInItemScope() async throws {
        let harness = try PresetHarness("vips-lists")
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [
              {"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "small", "op": "thumbnail", "width": 100},
              {"id": "grey", "op": "grayscale", "from": "small"},
              {"id": "pair", "op": "vips.arrayjoin", "in": ["@small", "@small"], "across": 2},
              {"id": "bands", "op": "vips.bandjoin", "in": ["@small", "@grey"]},
              {"id": "png", "op": "encode", "format": "png", "from": "pair"}, {"id": "w1", "op": "write", "path": "pair.png"},
              {"id": "tif", "op": "encode", "format": "tiff", "from": "bands"}, {"id": "w2", "op": "write", "path": "bands.tif"}]}
            """#, inputs: [try harness.sample("Bridge.jpg")])
        #expect(summary.succeeded == 1, "\(reports.map { $0.failure?.message ?? "" })")
        let pair = try Image.decode(Data(contentsOf: harness.output("pair.png")), origin: "pair")
        #expect((pair.width, pair.height) == (200, 56))
        let bands = try Image.decode(Data(contentsOf: harness.output("bands.tif")), origin: "bands")
        #expect(bands.bands == 4)
    }

    @Test func loadersReadFilesRelativeToThePreset() async throws {
        let harness = try PresetHarness("vips-loader")
        try harness.sample("logo.png")
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [
              {"id": "logo", "op": "vips.pngload", "scope": "run", "filename": "logo.png"},
              {"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "marked", "op": "watermark", "overlay": "@logo", "gravity": "north-west", "margin": 0},
              {"op": "encode", "format": "png"}, {"op": "write", "path": "marked.png"}]}
            """#, inputs: [try harness.sample("Bridge.jpg")])
        #expect(summary.succeeded == 1, "\(reports.map { $0.failure?.message ?? "" })")
        let marked = try Image.decode(Data(contentsOf: harness.output("marked.png")), origin: "marked")
        #expect((marked.width, marked.height, marked.bands) == (1600, 900, 3))
    }

    @Test func watermarkContactSheetMatrixAndMeasurement() async throws {
        let harness = try PresetHarness("vips-run")
        let inputs = try ["Bridge.jpg", "Wine.jpg", "sunset.jpg"].map { try harness.sample($0) }
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [
              {"id": "logo", "op": "vips.text", "scope": "run", "text": "<b>FW</b>", "dpi": 300},
              {"id": "source", "op": "read"},
              {"id": "image", "op": "decode"},
              {"id": "thumb", "op": "thumbnail", "width": 200, "height": 200, "fit": "cover"},
              {"id": "mark", "op": "vips.composite2", "overlay": "@logo", "mode": "over", "x": 5, "y": 5},
              {"id": "edges", "op": "vips.conv", "mask": [[0, -1, 0], [-1, 5, -1], [0, -1, 0]], "precision": "integer"},
              {"id": "jpeg", "op": "encode", "format": "png"},
              {"id": "save", "op": "write", "path": "{name}.png"},
              {"id": "sheet", "op": "vips.arrayjoin", "scope": "run", "in": "@thumb[*]", "across": 2, "shim": 4},
              {"id": "sheetpng", "op": "vips.pngsave_buffer", "scope": "run", "from": "sheet", "filter": "none|sub"},
              {"id": "sheetsave", "op": "write", "scope": "run", "from": "sheetpng", "path": "sheet.png"},
              {"id": "mean", "op": "vips.avg", "from": "image"},
              {"id": "meansave", "op": "write", "from": "mean", "path": "{name}.json"}]}
            """#, inputs: inputs)
        #expect(summary.succeeded == 3, "\(reports.map { "\($0.item.name): \($0.failure?.message ?? "ok")" })")

        // Two across, two down, 4 px apart: 2 × 200 + 4 by 2 × 200 + 4.
        let sheet = try Image.decode(Data(contentsOf: harness.output("sheet.png")), origin: "sheet.png")
        #expect((sheet.width, sheet.height) == (404, 404))

        let marked = try Image.decode(Data(contentsOf: harness.output("Bridge.png")), origin: "Bridge.png")
        #expect((marked.width, marked.height) == (200, 200))

        let measured = try JSONSerialization.jsonObject(with: Data(contentsOf: harness.output("Bridge.json"))) as? [String: Double]
        let expected = try Image.decode(Data(contentsOf: URL(fileURLWithPath: inputs[0])), origin: "Bridge.jpg").average()
        #expect(abs((measured?["out"] ?? 0) - expected) < 1e-6)
    }
}

private typealias Image = WorkbenchVips.VipsImage
