import Foundation
import Testing
import WorkbenchTestSupport

/// What a plugin is, as a rerun and standard output see it: its files are redone when its
/// library changes whatever its version says, and what its kernels print stays off the
/// workbench's standard output.
@Suite struct PluginIdentityTests {
    private func project(_ label: String, filter: String) throws -> (folder: URL, preset: String) {
        let folder = try Fixtures.temporaryDirectory(label)
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPlugins.blackImages(widths: [40, 50], in: input)
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "in/*.png" }, "output": "out",
              "graph": [ { "op": "read" }, { "op": "decode" }, { "id": "filter", "op": "testkit.\(filter)" },
                         { "op": "encode", "format": "png" }, { "op": "write", "path": "{name}.png" } ] }
            """, in: folder)
        return (folder, preset)
    }

    /// The first sample of a PNG the run wrote, by the vips tool (not the code under test).
    private func firstSample(_ file: URL) throws -> String {
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["vips", "getpoint", file.path, "0", "0"]
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aRebuiltPluginRedoesItsFilesWithoutAVersionBump() throws {
        let (folder, preset) = try project("plugin-rebuilt", filter: "invert")
        let plugins = folder.appendingPathComponent("plugins")
        try TestPlugins.cPlugin(in: plugins)
        let arguments = ["run", preset, "--plugin-path", plugins.path]
        let first = try CLIProcess.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try firstSample(folder.appendingPathComponent("out/w40.png")) == "255 255 255")
        #expect(try CLIProcess.run(arguments).lines.last?.hasPrefix("2 items: 2 up to date") == true)

        // The same plugin.json (version 1.0.0), another kernel.
        try TestPlugins.cPlugin(in: plugins, defines: ["INVERT_FROM=200"])
        let rebuilt = try CLIProcess.run(arguments)
        #expect(rebuilt.lines.last?.hasPrefix("2 items: 2 succeeded") == true, "\(rebuilt.lines)")
        #expect(try firstSample(folder.appendingPathComponent("out/w40.png")) == "200 200 200")
        // Known again from the cache (inode, size and time unchanged): up to date.
        #expect(try CLIProcess.run(arguments).lines.last?.hasPrefix("2 items: 2 up to date") == true)

        // The cache is what a rerun reads: a hash planted there for the unchanged file is believed.
        let cache = URL(fileURLWithPath: CLIProcess.home).appendingPathComponent(".cache/workbench/plugin-identities.json")
        var entries = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: cache)) as? [String: [String: Any]])
        let library = try #require(entries.keys.first { $0.hasPrefix(plugins.path) && $0.hasSuffix("/libTestKit.so") })
        entries[library]?["hash"] = String(repeating: "0", count: 32)
        try JSONSerialization.data(withJSONObject: entries).write(to: cache)
        #expect(try CLIProcess.run(arguments).lines.last?.hasPrefix("2 items: 2 succeeded") == true)
    }

    @Test func whatAKernelPrintsGoesToStandardErrorUnderItsName() throws {
        let (folder, preset) = try project("plugin-chatter", filter: "chatter")
        let plugins = folder.appendingPathComponent("plugins")
        try TestPlugins.cPlugin(in: plugins)
        let run = try CLIProcess.run(["run", preset, "--plugin-path", plugins.path, "--events", "-", "--progress", "none"])
        #expect(run.status == 0, "\(run.stderr)")
        // Standard output is JSON lines and nothing else.
        #expect(!run.lines.isEmpty)
        for line in run.lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not JSON: \(line)")
        }
        let printed = run.stderr.split(separator: "\n")
        #expect(printed.contains { $0.hasPrefix("testkit: chatter on stdout: region 0,0") }, "\(run.stderr)")
        #expect(printed.contains { $0 == "testkit: chatter on stderr: no newline at the end" }, "\(run.stderr)")
    }
}
