import Foundation
import Glibc
import Testing
import WorkbenchPlugins
import WorkbenchTestSupport

/// The sandbox of isolated helpers, against real kernels written to misbehave
/// (`Tests/Support/hostile_plugin.c`): each attempt is refused, fails its item naming the
/// plugin and the attempt, and did not happen; the item beside it is written.
@Suite struct SandboxTests {
    struct Setup {
        let folder: URL, plugins: URL, home: URL, out: URL
    }

    private func setUp(_ label: String) throws -> Setup {
        let folder = try Fixtures.temporaryDirectory("sandbox-\(label)")
        let plugins = folder.appendingPathComponent("plugins"), input = folder.appendingPathComponent("in")
        let home = folder.appendingPathComponent("home")
        for made in [input, home] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        try TestPlugins.hostilePlugin(in: plugins)
        try TestPlugins.blackImages(widths: [40, 41], in: input)
        return Setup(folder: folder, plugins: plugins, home: home, out: folder.appendingPathComponent("out"))
    }

    /// Runs `hostile.<filter>` (with `target`, `port`) over a 40- and a 41-pixel-wide image.
    private func run(_ setup: Setup, _ filter: String, target: String = "", port: Int = 0,
                     environment: [String] = []) throws -> CLIProcess.Result {
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "in/*.png" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "filter", "op": "hostile.\(filter)", "target": "\(target)", "port": \(port) },
                         { "id": "png", "op": "encode", "format": "png" }, { "id": "save", "op": "write", "path": "{name}.png" } ] }
            """, in: setup.folder)
        return try CLIProcess.run(["run", preset, "--plugin-path", setup.plugins.path, "--out", setup.out.path, "--force"],
                                  launcher: ["/usr/bin/env", "HOME=\(setup.home.path)"] + environment)
    }

    /// The 40-wide item written, the 41-wide one failed naming the plugin, the filter and `words`.
    private func expectRefused(_ run: CLIProcess.Result, _ setup: Setup, _ words: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        let output = run.stdout + run.stderr
        #expect(run.status == 1, "\(output)", sourceLocation: sourceLocation)
        #expect(FileManager.default.fileExists(atPath: setup.out.appendingPathComponent("w40.png").path), "\(output)",
                sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: setup.out.appendingPathComponent("w41.png").path), "\(output)",
                sourceLocation: sourceLocation)
        #expect(output.contains("plugin hostile, filter"), "\(output)", sourceLocation: sourceLocation)
        #expect(output.contains(words), "\(output)", sourceLocation: sourceLocation)
    }

    @Test func writingAFileIsRefusedAndNothingIsWritten() throws {
        let setup = try setUp("write")
        let target = setup.home.appendingPathComponent("pwned").path
        let refused = try run(setup, "write", target: target)
        expectRefused(refused, setup, "the sandbox refused an attempt to create, change or remove a file (openat)")
        #expect(!FileManager.default.fileExists(atPath: target))
        // Without the sandbox the same kernel does write it: what the test checks is the sandbox.
        let unconfined = try run(setup, "write", target: target, environment: ["WORKBENCH_PLUGIN_SANDBOX=off"])
        #expect(unconfined.status == 0, "\(unconfined.stdout + unconfined.stderr)")
        #expect(FileManager.default.fileExists(atPath: target))
    }

    @Test func readingOutsideThePluginsFolderIsRefusedWithLandlock() throws {
        guard Sandbox.support.landlockABI > 0 else { return }
        let setup = try setUp("read")
        let secret = setup.folder.appendingPathComponent("shadow")
        try "root:secret\n".write(to: secret, atomically: true, encoding: .utf8)
        let refused = try run(setup, "read", target: secret.path)
        expectRefused(refused, setup, "could not read \(secret.path): Permission denied")
        // Its own folder stays readable.
        let own = setup.plugins.appendingPathComponent("hostile/plugin.json").path
        let allowed = try run(setup, "read", target: own)
        #expect(allowed.status == 0, "\(allowed.stdout + allowed.stderr)")
    }

    @Test func connectingToALocalPortIsRefusedAndTheListenerSeesNothing() throws {
        let setup = try setUp("connect")
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        #expect(bound && listen(listener, 8) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let refused = try run(setup, "connect", port: port)
        expectRefused(refused, setup, "the sandbox refused an attempt to use the network (socket)")
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
        let accepted = accept(listener, nil, nil)
        #expect(accepted < 0 && errno == EAGAIN, "the listener saw a connection")
        if accepted >= 0 { close(accepted) }
    }

    @Test func runningAProgramIsRefused() throws {
        let setup = try setUp("exec")
        let marker = setup.folder.appendingPathComponent("ran").path
        let refused = try run(setup, "exec", target: marker)
        expectRefused(refused, setup, "the sandbox refused an attempt to run a program (execve)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func signallingTheParentIsRefusedAndTheRunLives() throws {
        let setup = try setUp("kill")
        let refused = try run(setup, "kill")
        // The workbench was not killed: it finished and reported the item.
        expectRefused(refused, setup, "the sandbox refused an attempt to signal another process (kill)")
    }

    @Test func forkingIsRefusedAndNoChildRan() throws {
        let setup = try setUp("fork")
        let marker = setup.folder.appendingPathComponent("child").path
        let refused = try run(setup, "fork", target: marker)
        expectRefused(refused, setup, "the sandbox refused an attempt to start a process (clone)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test func pluginListSaysWhetherTheSandboxIsActive() throws {
        let setup = try setUp("list")
        let list = try CLIProcess.run(["plugin", "list", "--plugin-path", setup.plugins.path])
        #expect(list.status == 0)
        #expect(list.stdout.contains("Sandbox: " + Sandbox.support.summary), "\(list.stdout)")
        // A C library that declares no toolchain and links no Swift is accepted.
        #expect(list.stdout.contains("hostile 1.0.0") && list.stdout.contains("ok"), "\(list.stdout)")
    }
}
