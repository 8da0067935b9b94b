import Foundation
import Testing
import WorkbenchTestSupport

/// Plugins without Swift (the C and Rust examples, built for real), and packing, installing and
/// removing plugins with the real `workbench`.
@Suite struct PluginPackageTests {
    /// A copy of `Plugins/Examples/<example>` built with make in a fresh folder.
    private func built(_ example: String, in folder: URL) throws -> URL {
        let source = Fixtures.packageRoot.appendingPathComponent("Plugins/Examples/\(example)")
        let copy = folder.appendingPathComponent(example)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) where !["target", "Cargo.lock"].contains(name) && !name.hasSuffix(".so") {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: copy.appendingPathComponent(name))
        }
        let kit = Fixtures.packageRoot.appendingPathComponent("Plugins/Kit/Sources/CKernel/include").path
        try TestPlugins.compile(["make", "-C", copy.path, "KIT=\(kit)"])
        return copy
    }

    /// A 256×1 grey ramp (pixel x has value x) as `in/ramp.png`, and a preset running `op` on it.
    private func rampPreset(_ op: String, _ parameters: String, in folder: URL) throws -> String {
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPlugins.compile(["vips", "identity", input.appendingPathComponent("ramp.png").path])
        return try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "in/*.png" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "filter", "op": "\(op)"\(parameters) },
                         { "id": "png", "op": "encode", "format": "png" }, { "id": "save", "op": "write", "path": "{name}.png" } ] }
            """, in: folder)
    }

    /// The value of pixel (x, 0) of a one-band image, by libvips' own `getpoint`.
    private func value(_ file: URL, x: Int) throws -> Int {
        let output = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["vips", "getpoint", file.path, "\(x)", "0"]
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Int(Double(text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").first ?? "") ?? -1)
    }

    @Test func theCExampleBuildsInstallsAndPosterizes() throws {
        let folder = try Fixtures.temporaryDirectory("c-example")
        let plugin = try built("C", in: folder)
        let plugins = folder.appendingPathComponent("plugins")
        let install = try CLIProcess.run(["plugin", "install", plugin.path, "--to", plugins.path])
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stdout.contains("Installed posterize 1.0.0"), "\(install.stdout)")
        let preset = try rampPreset("posterize.levels", #", "levels": 2"#, in: folder)
        let out = folder.appendingPathComponent("out")
        let run = try CLIProcess.run(["run", preset, "--plugin-path", plugins.path, "--out", out.path])
        #expect(run.status == 0, "\(run.stdout + run.stderr)")
        let result = out.appendingPathComponent("ramp.png")
        #expect(try [0, 127, 128, 255].map { try value(result, x: $0) } == [0, 0, 255, 255])
    }

    @Test func theRustExampleBuildsInstallsAndSolarizes() throws {
        let folder = try Fixtures.temporaryDirectory("rust-example")
        let plugin = try built("Rust", in: folder)
        let plugins = folder.appendingPathComponent("plugins")
        let install = try CLIProcess.run(["plugin", "install", plugin.path, "--to", plugins.path])
        #expect(install.status == 0, "\(install.stderr)")
        let preset = try rampPreset("solarize.threshold", #", "level": 128"#, in: folder)
        let out = folder.appendingPathComponent("out")
        let run = try CLIProcess.run(["run", preset, "--plugin-path", plugins.path, "--out", out.path])
        #expect(run.status == 0, "\(run.stdout + run.stderr)")
        let result = out.appendingPathComponent("ramp.png")
        #expect(try [0, 100, 128, 129, 200, 255].map { try value(result, x: $0) } == [0, 100, 128, 126, 55, 0])
    }

    @Test func packInstallReplaceAndRemoveRoundTrip() throws {
        let folder = try Fixtures.temporaryDirectory("pack")
        let plugin = try built("C", in: folder)
        let pack = try CLIProcess.run(["plugin", "pack", plugin.path, "--to", folder.path])
        #expect(pack.status == 0, "\(pack.stderr)")
        let archive = folder.appendingPathComponent("posterize-1.0.0.wbplugin")
        #expect(pack.stdout.contains(archive.path), "\(pack.stdout)")
        // A plain tar: the standard tools list and check it.
        let unpacked = folder.appendingPathComponent("unpacked")
        try FileManager.default.createDirectory(at: unpacked, withIntermediateDirectories: true)
        try TestPlugins.compile(["tar", "-xf", archive.path, "-C", unpacked.path])
        try TestPlugins.compile(["sh", "-c", "cd '\(unpacked.path)/posterize' && sha256sum -c --quiet SHA256SUMS"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: unpacked.path + "/posterize").sorted()
                == ["SHA256SUMS", "libposterize.so", "plugin.json"])
        // The same files pack to the same bytes.
        let again = folder.appendingPathComponent("again")
        try FileManager.default.createDirectory(at: again, withIntermediateDirectories: true)
        _ = try CLIProcess.run(["plugin", "pack", plugin.path, "--to", again.path])
        #expect(FileManager.default.contents(atPath: archive.path) == FileManager.default.contents(atPath: again.path + "/posterize-1.0.0.wbplugin"))

        // Re-made by hand with tar from the unpacked folder (tar writes the folder's own entry first): installs the same.
        let retarred = folder.appendingPathComponent("retarred.wbplugin")
        try TestPlugins.compile(["tar", "-cf", retarred.path, "-C", unpacked.path, "posterize"])
        let byHand = try CLIProcess.run(["plugin", "install", retarred.path, "--to", folder.appendingPathComponent("by-hand").path])
        #expect(byHand.status == 0, "\(byHand.stderr)")

        let plugins = folder.appendingPathComponent("plugins")
        let install = try CLIProcess.run(["plugin", "install", archive.path, "--to", plugins.path])
        #expect(install.status == 0, "\(install.stderr)")
        let reinstall = try CLIProcess.run(["plugin", "install", archive.path, "--to", plugins.path])
        #expect(reinstall.stdout.contains("(replacing 1.0.0)"), "\(reinstall.stdout)")
        let list = try CLIProcess.run(["plugin", "list", "--plugin-path", plugins.path])
        #expect(list.stdout.contains("posterize 1.0.0"), "\(list.stdout)")
        let remove = try CLIProcess.run(["plugin", "remove", "posterize", "--from", plugins.path])
        #expect(remove.status == 0 && remove.stdout.contains("Removed posterize 1.0.0"), "\(remove.stdout + remove.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: plugins.path).isEmpty)
        let again2 = try CLIProcess.run(["plugin", "remove", "posterize", "--from", plugins.path])
        #expect(again2.status == 1 && again2.stderr.contains("no plugin \"posterize\" is installed in"), "\(again2.stderr)")
    }

    @Test func aTamperedPackageIsRefusedAndNothingIsInstalled() throws {
        let folder = try Fixtures.temporaryDirectory("tampered")
        let plugin = try built("C", in: folder)
        _ = try CLIProcess.run(["plugin", "pack", plugin.path, "--to", folder.path])
        let archive = folder.appendingPathComponent("posterize-1.0.0.wbplugin")
        var bytes = [UInt8](try Data(contentsOf: archive))
        // One byte of the library's code, well past its ELF header.
        let magic: [UInt8] = [0x7F, 0x45, 0x4C, 0x46]
        let found = (0..<bytes.count - 4).first { at in bytes[at..<at + 4].elementsEqual(magic) }
        let elf = try #require(found)
        bytes[elf + 4096] ^= 0xFF
        try Data(bytes).write(to: archive)
        let plugins = folder.appendingPathComponent("plugins")
        let install = try CLIProcess.run(["plugin", "install", archive.path, "--to", plugins.path])
        #expect(install.status == 1)
        #expect(install.stderr.contains("libposterize.so does not match its checksum"), "\(install.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: plugins.path)) ?? []).isEmpty)
        // Not a tar at all.
        try Data("not a plugin".utf8).write(to: archive)
        let garbage = try CLIProcess.run(["plugin", "install", archive.path, "--to", plugins.path])
        #expect(garbage.status == 1 && garbage.stderr.contains("not a tar archive"), "\(garbage.stderr)")
    }

    @Test func aLibraryLinkingSwiftMustDeclareItsToolchain() throws {
        let folder = try Fixtures.temporaryDirectory("undeclared-swift")
        let plugin = try TestPlugins.cPlugin(in: folder, defines: ["TOOLCHAIN=0"])
        // The same C plugin, linked against Swift's runtime while declaring no toolchain.
        let bin = try #require(ProcessInfo.processInfo.environment["PATH", default: ""].split(separator: ":").map(String.init)
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/swiftc") })
        let runtime = URL(fileURLWithPath: bin).deletingLastPathComponent().appendingPathComponent("lib/swift/linux").path
        let header = Fixtures.packageRoot.appendingPathComponent("Plugins/Kit/Sources/CKernel/include").path
        try TestPlugins.compile(["clang", "-shared", "-fPIC", "-I", header, "-DTOOLCHAIN=0", "-DPLUGIN_NAME=\"testkit\"",
                                 Fixtures.supportFile("test_plugin.c").path, "-o", plugin.appendingPathComponent("libTestKit.so").path,
                                 "-L", runtime, "-Wl,--no-as-needed", "-lswiftCore"])
        let list = try CLIProcess.run(["plugin", "list", "--plugin-path", folder.path])
        #expect(list.stdout.contains("links Swift's runtime but declares no toolchain"), "\(list.stdout)")
        // Without it, a C library declaring no toolchain is accepted.
        try TestPlugins.cPlugin(in: folder, defines: ["TOOLCHAIN=0"])
        let accepted = try CLIProcess.run(["plugin", "list", "--plugin-path", folder.path])
        #expect(accepted.stdout.contains("testkit 1.0.0") && !accepted.stdout.contains("refused"), "\(accepted.stdout)")
    }
}
