import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// The safety policy: no op a preset can name runs a program, touches a file descriptor, writes
/// a file or reads one outside the preset's folder.
@Suite struct OperationPolicyTests {
    private var offered: [OpDefinition] { VipsOperationOps.all }

    private static func isFile(_ parameter: ParameterSpec) -> Bool {
        if case .presetFile = parameter.type { return true }
        return false
    }

    @Test func programsDescriptorsAndFileWritersAreNotOffered() throws {
        let registry = PresetHarness.registry
        for name in ["vips.system", "vips.rawsave_fd", "vips.jpegsave_mime", "vips.matrixprint", "vips.magicksave_bmp", "vips.pngsave"] {
            #expect(registry[name] == nil, "\(name) is offered")
            #expect(registry.unavailableReason(name) != nil, "\(name) has no reason")
        }
        let harness = try PresetHarness("policy-refused")
        let errors = harness.errors(#"{"version": 1, "graph": [{"op": "vips.system", "scope": "run", "cmd_format": "sh -c \"id > pwned.txt\""}]}"#)
        #expect(errors.contains { $0.contains("graph[0].op: \"vips.system\" cannot be used in a preset: it runs a program") }, "\(errors)")
        #expect(!FileManager.default.fileExists(atPath: harness.folder.appendingPathComponent("pwned.txt").path))
    }

    /// Walks every offered operation's declared arguments: a saver must produce bytes, nothing
    /// takes a descriptor, and every text argument is either a confined file or a reviewed word.
    @Test func everyOfferedOperationIsSafeByItsArguments() throws {
        #expect(offered.count > 200)
        var unreviewed: [String] = []
        for definition in offered {
            let nick = String(definition.spec.name.dropFirst("vips.".count))
            let info = try #require(VipsIntrospection.operations[nick])
            #expect(nick != "system")
            #expect(!info.arguments.contains { $0.isInput && ($0.name == "fd" || $0.name == "descriptor") }, "\(nick) takes a descriptor")
            if info.isSaver { #expect(info.arguments.contains { $0.isOutput && $0.kind.isBlob }, "\(nick) saves somewhere else than bytes") }
            for argument in info.arguments where argument.isInput {
                guard case .string = argument.kind else { continue }
                let parameter = try #require(definition.spec.parameters.first { $0.name == argument.name })
                if !Self.isFile(parameter) && !VipsOperationPolicy.wordArguments.contains(argument.name) {
                    unreviewed.append("\(nick).\(argument.name)")
                }
            }
        }
        #expect(unreviewed.isEmpty, "text arguments neither confined nor reviewed: \(unreviewed)")
    }

    /// Every file parameter of every op refuses absolute paths, `..` and URLs when the preset loads.
    @Test func fileParametersRefuseAbsolutePathsAndParentFolders() throws {
        let harness = try PresetHarness("policy-paths")
        var checked = 0
        for spec in PresetHarness.registry.specs {
            for parameter in spec.parameters where Self.isFile(parameter) {
                for (value, expected) in [("/etc/hostname", "is absolute"), ("../secret.png", "contains \"..\""),
                                          ("sub/../../secret.png", "contains \"..\""), ("file:///etc/hostname", "is a URL")] {
                    let errors = harness.errors(PresetHarness.preset(for: spec, override: (parameter.name, "\"\(value)\"")))
                    #expect(errors.contains { $0.contains(".\(parameter.name): ") && $0.contains(expected) }, "\(spec.name).\(parameter.name) = \(value): \(errors)")
                }
                checked += 1
            }
        }
        #expect(checked >= 40)
    }

    /// At run time every file parameter follows symbolic links: a link inside the preset's folder
    /// to a file outside it is refused before libvips sees the path.
    @Test func fileParametersRefuseLinksLeadingOutside() async throws {
        let harness = try PresetHarness("policy-links")
        let outside = try Fixtures.temporaryDirectory("policy-outside")
        let secret = outside.appendingPathComponent("secret.png")
        try FileManager.default.copyItem(at: Fixtures.samples.appendingPathComponent("logo.png"), to: secret)
        try FileManager.default.createSymbolicLink(atPath: harness.folder.appendingPathComponent("link").path, withDestinationPath: secret.path)
        // Other required file parameters get "x", a real file inside the folder.
        try FileManager.default.copyItem(at: secret, to: harness.folder.appendingPathComponent("x"))
        let input = try harness.sample("Bridge.jpg")
        var checked = 0
        for spec in PresetHarness.registry.specs where spec.name != "download" {
            for parameter in spec.parameters where Self.isFile(parameter) {
                let (summary, reports) = try await harness.run(PresetHarness.preset(for: spec, override: (parameter.name, "\"link\"")), inputs: [input])
                let messages = reports.compactMap(\.failure?.message) + summary.runNodes.compactMap(\.failure?.message)
                #expect(messages.contains { $0.contains("Refused to read \"link\"") && $0.contains("outside the preset's folder") },
                        "\(spec.name).\(parameter.name): \(messages)")
                checked += 1
            }
        }
        #expect(checked >= 40)
    }

    @Test func aLoaderReadsAFileInsideThePresetFolder() async throws {
        let harness = try PresetHarness("policy-inside")
        try FileManager.default.createDirectory(at: harness.folder.appendingPathComponent("art"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.samples.appendingPathComponent("logo.png"), to: harness.folder.appendingPathComponent("art/logo.png"))
        let (summary, _) = try await harness.run(#"""
            {"version": 1, "graph": [
              {"id": "logo", "op": "vips.pngload", "scope": "run", "filename": "art/logo.png"},
              {"op": "encode", "scope": "run", "format": "png"}, {"op": "write", "scope": "run", "path": "logo.png"}]}
            """#, inputs: [try harness.sample("Bridge.jpg")])
        #expect(summary.runNodes.map(\.output) == ["logo.png"])
        #expect(summary.exitCode == 0)
    }

    @Test func builtinProfilesAreNotFiles() async throws {
        let harness = try PresetHarness("policy-profiles")
        // No file named "cmyk" or "srgb" exists in the folder: the names are libvips' own profiles.
        let (summary, reports) = try await harness.run(#"""
            {"version": 1, "graph": [{"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "to-cmyk", "op": "vips.icc_transform", "output_profile": "cmyk", "input_profile": "srgb"},
              {"id": "back", "op": "vips.icc_transform", "output_profile": "srgb"},
              {"op": "encode", "format": "jpeg", "profile": "srgb"}, {"op": "write", "path": "x.jpg"}]}
            """#, inputs: [try harness.sample("Bridge.jpg")])
        #expect(summary.succeeded == 1, "\(reports.map { $0.failure?.message ?? "" })")
    }
}
