import Foundation
import Testing
import WorkbenchTestSupport

/// `workbench filters` and the libvips switches of `workbench run`, through the executable.
@Suite struct FiltersCommandTests {
    @Test func listsEveryGroupAndTheLibvipsOperations() throws {
        let result = try CLIProcess.run(["filters"])
        #expect(result.status == 0, "\(result.stderr)")
        for heading in ["Built-in stages (8):", "Filters (", "libvips operations ("] {
            #expect(result.lines.contains { $0.hasPrefix(heading) }, "\(heading)")
        }
        #expect(result.lines.contains { $0.hasPrefix("  vips.gaussblur ") && $0.contains("image → image") })
        #expect(result.lines.contains { $0.hasPrefix("Not offered (") && $0.contains("a preset may not run programs") })
        #expect(result.lines.contains { $0 == "  vips.system: it runs a program (\"cmd_format\"); a preset may never run programs" })
        #expect(result.lines.contains { $0.hasPrefix("Confined (") })
    }

    @Test func showsOneOpWithTypesRangesAndDefaults() throws {
        let result = try CLIProcess.run(["filters", "vips.composite2"])
        #expect(result.status == 0)
        #expect(result.lines.first == "vips.composite2 — Blend a pair of images with a blend mode.")
        #expect(result.lines.contains { $0.hasPrefix("  overlay: an image reference \"@id\"") && $0.hasSuffix("required") })
        #expect(result.lines.contains { $0.hasPrefix("  x: an integer -10000000…10000000, default 0") })
        #expect(result.lines.contains { $0.hasPrefix("  compositing_space (or compositing-space): one of") })

        // Every variable a write path takes is listed where users look it up.
        let write = try CLIProcess.run(["filters", "write"])
        #expect(write.stdout.contains("{dir}") && write.stdout.contains("foreach"), "\(write.stdout)")

        let unknown = try CLIProcess.run(["filters", "vips.gausblur"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains(#"No op is named "vips.gausblur"; did you mean "vips.gaussblur"?"#))
        let unavailable = try CLIProcess.run(["filters", "vips.pngsave"])
        #expect(unavailable.status == 2 && unavailable.stderr.contains("outside the output root"))
    }

    @Test func jsonIsStableAndComplete() throws {
        let first = try CLIProcess.run(["filters", "--json"])
        let second = try CLIProcess.run(["filters", "--json"])
        #expect(first.status == 0 && first.stdout == second.stdout)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        let filters = try #require(root["filters"] as? [[String: Any]])
        let names = filters.compactMap { $0["name"] as? String }
        #expect(names == names.sorted() && names.count > 250)
        let blur = try #require(filters.first { $0["name"] as? String == "vips.gaussblur" })
        let parameters = try #require(blur["parameters"] as? [[String: Any]])
        let sigma = try #require(parameters.first { $0["name"] as? String == "sigma" })
        #expect(sigma["required"] as? Bool == true)
        #expect((sigma["type"] as? [String: Any])?["kind"] as? String == "number")
        #expect((root["unavailable"] as? [[String: String]])?.contains { $0["name"] == "vips.jpegsave" } == true)
    }

    @Test func untrustedLoadersNeedTheFlag() throws {
        let folder = try Fixtures.temporaryDirectory("untrusted")
        let svg = folder.appendingPathComponent("box.svg")
        try #"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="red"/></svg>"#
            .write(to: svg, atomically: true, encoding: .utf8)
        let preset = folder.appendingPathComponent("p.json")
        try #"{"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "encode", "format": "png"}, {"op": "write", "path": "{name}.png"}]}"#
            .write(to: preset, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        let blocked = try CLIProcess.run(["run", preset.path, svg.path, "--out", out.path])
        #expect(blocked.status == 1 && blocked.stdout.contains("blocked as untrusted"), "\(blocked.stdout)")
        let allowed = try CLIProcess.run(["run", preset.path, svg.path, "--out", out.path, "--allow-untrusted"])
        #expect(allowed.status == 0, "\(allowed.stdout)")
        #expect(Fixtures.files(in: out) == ["box.png"])
    }
}

/// `workbench schema` and the schema shipped in Presets/schema.
@Suite struct SchemaCommandTests {
    @Test func theOpsReferenceIsCurrent() throws {
        let result = try CLIProcess.run(["filters", "--markdown"])
        #expect(result.status == 0)
        let shipped = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/ops.md"), encoding: .utf8)
        // The difference and the command's warnings (a libvips module that did not load drops its savers' options).
        #expect(LineDifference.first(result.stdout, shipped) == nil,
                "docs/ops.md is stale: run `swift run workbench filters --markdown > docs/ops.md`; stderr: \(result.stderr.prefix(2000))")
    }

    @Test func theShippedSchemaIsCurrent() throws {
        let result = try CLIProcess.run(["schema"])
        #expect(result.status == 0)
        let shipped = try String(contentsOf: Fixtures.presets.appendingPathComponent("schema/preset.schema.json"), encoding: .utf8)
        #expect(LineDifference.first(result.stdout, shipped) == nil,
                "Presets/schema/preset.schema.json is stale: run `swift run workbench schema > Presets/schema/preset.schema.json`; stderr: \(result.stderr.prefix(2000))")
    }

    @Test func everyOpAndItsParametersAreInTheSchema() throws {
        let result = try CLIProcess.run(["schema"])
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let node = try #require((schema["$defs"] as? [String: Any])?["node"] as? [String: Any])
        let ops = try #require(((node["properties"] as? [String: Any])?["op"] as? [String: Any])?["enum"] as? [String])
        #expect(ops.contains("vips.gaussblur") && ops.contains("watermark") && ops.contains("decode") && ops.count > 250)
        let rules = try #require(node["allOf"] as? [[String: Any]])
        #expect(rules.count == ops.count)
        let blur = try #require(rules.first { (($0["if"] as? [String: Any])?["properties"] as? [String: Any]).map { "\($0)".contains("vips.gaussblur") } ?? false })
        let then = try #require(blur["then"] as? [String: Any])
        #expect(then["required"] as? [String] == ["sigma"])
        // A number, or "{var}" of a `foreach`.
        let sigma = try #require((then["properties"] as? [String: Any])?["sigma"] as? [String: Any])
        let choices = try #require(sigma["anyOf"] as? [[String: Any]])
        #expect(choices.first?["type"] as? String == "number" && choices.last?["pattern"] as? String == "^\\{[A-Za-z][A-Za-z0-9_]*\\}$")
        #expect(node["unevaluatedProperties"] as? Bool == false)
    }
}
