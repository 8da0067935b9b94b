import Foundation

/// Plugins for the tests, built for real: the example plugins of `Plugins/` (with `workbench
/// plugin build`, once per test process), and the C test plugin (`test_plugin.c`, with clang)
/// in the variants the refusal tests need.
public enum TestPlugins {
    /// A folder holding the installed example plugins `filmlab` and `halftone`, or why not.
    public static let examples: Result<URL, TestPluginError> = {
        do {
            let folder = try Fixtures.temporaryDirectory("example-plugins")
            for plugin in ["FilmLab", "Halftone"] {
                let package = Fixtures.packageRoot.appendingPathComponent("Plugins/\(plugin)").path
                let result = try CLIProcess.run(["plugin", "build", package, "--to", folder.path])
                guard result.status == 0 else { return .failure(TestPluginError(message: "building \(plugin): \(result.stderr)")) }
            }
            return .success(folder)
        } catch {
            return .failure(TestPluginError(message: "\(error)"))
        }
    }()

    /// The toolchain this workbench reports (`swift-6.3`), which a C plugin must claim.
    public static var toolchain: String {
        let version = (try? CLIProcess.run(["--version"]).stdout) ?? ""
        return version.split(separator: ",").last.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " )\n")) } ?? "unknown"
    }

    /// Compiles the C test plugin into `folder/name/` with a manifest declaring `filters`
    /// (default: all five). `defines` are extra -D flags, e.g. `NO_ENTRY` or `TOOLCHAIN="swift-5.9"`.
    @discardableResult
    public static func cPlugin(in folder: URL, name: String = "testkit", manifestName: String? = nil, api: Int = 1,
                               filters: [String] = ["invert", "crash", "hang", "fail", "chatter"], defines: [String] = [],
                               manifest: String? = nil) throws -> URL {
        let plugin = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: plugin, withIntermediateDirectories: true)
        let header = Fixtures.packageRoot.appendingPathComponent("Plugins/Kit/Sources/CKernel/include").path
        var arguments = ["clang", "-shared", "-fPIC", "-O1", "-I", header]
        if !defines.contains(where: { $0.hasPrefix("PLUGIN_NAME") }) { arguments.append("-DPLUGIN_NAME=\"\(name)\"") }
        if !defines.contains(where: { $0.hasPrefix("TOOLCHAIN") }) { arguments.append("-DTOOLCHAIN=\"\(toolchain)\"") }
        arguments += defines.map { "-D\($0)" }
        arguments += [Fixtures.supportFile("test_plugin.c").path, "-o", plugin.appendingPathComponent("libTestKit.so").path]
        try compile(arguments)
        let declared = filters.map { #"{ "name": "\#($0)", "summary": "The test kernel's \#($0)." }"# }.joined(separator: ", ")
        let text = manifest ?? """
            { "name": "\(manifestName ?? name)", "version": "1.0.0", "api": \(api), "library": "libTestKit.so",
              "filters": [ \(declared) ] }
            """
        try text.write(to: plugin.appendingPathComponent("plugin.json"), atomically: true, encoding: .utf8)
        return plugin
    }

    /// Compiles the hostile test plugin (`hostile_plugin.c`: kernels that try what the sandbox
    /// refuses on images 41 pixels wide) into `folder/hostile/`.
    @discardableResult
    public static func hostilePlugin(in folder: URL) throws -> URL {
        let plugin = folder.appendingPathComponent("hostile")
        try FileManager.default.createDirectory(at: plugin, withIntermediateDirectories: true)
        let header = Fixtures.packageRoot.appendingPathComponent("Plugins/Kit/Sources/CKernel/include").path
        try compile(["clang", "-shared", "-fPIC", "-O1", "-I", header, Fixtures.supportFile("hostile_plugin.c").path,
                     "-o", plugin.appendingPathComponent("libHostile.so").path])
        let parameters = #"""
            [ { "name": "target", "type": "string", "default": "", "summary": "A path." },
              { "name": "port", "type": "integer", "min": 0, "max": 65535, "default": 0, "summary": "A port." } ]
            """#
        let declared = ["write", "read", "connect", "exec", "kill", "fork"]
            .map { #"{ "name": "\#($0)", "summary": "Tries to \#($0).", "parameters": \#(parameters) }"# }.joined(separator: ", ")
        try """
            { "name": "hostile", "version": "1.0.0", "api": 1, "library": "libHostile.so", "filters": [ \(declared) ] }
            """.write(to: plugin.appendingPathComponent("plugin.json"), atomically: true, encoding: .utf8)
        return plugin
    }

    /// Runs a compiler (or any tool) through `env`, throwing with the command line and what it
    /// printed if it fails; a build that works prints nothing into the test log.
    public static func compile(_ arguments: [String], in directory: URL? = nil) throws {
        let compile = Process()
        compile.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compile.arguments = arguments
        if let directory { compile.currentDirectoryURL = directory }
        // A file, not a pipe: a long build's output could fill a pipe nobody reads until the end.
        let log = try Fixtures.temporaryDirectory("compile").appendingPathComponent("output.txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        compile.standardOutput = handle
        compile.standardError = handle
        try compile.run()
        compile.waitUntilExit()
        guard compile.terminationStatus == 0 else {
            let printed = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw TestPluginError(message: "failed: \(arguments.joined(separator: " "))\n\(printed)")
        }
    }

    /// Black PNG images `w<width>.png`, 30 pixels high, in `folder`: the C kernels crash on width
    /// 41 and hang on width 42.
    public static func blackImages(widths: [Int], in folder: URL) throws {
        for width in widths {
            let make = Process()
            make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            make.arguments = ["vips", "black", folder.appendingPathComponent("w\(width).png").path, "\(width)", "30", "--bands", "3"]
            try make.run()
            make.waitUntilExit()
        }
    }
}

public struct TestPluginError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
