import Foundation
import Testing
import WorkbenchTestSupport
import WorkbenchVips

/// Plugins end to end: real builds, real `dlopen`, real helper processes, real libvips.
@Suite(.serialized) struct PluginCommandTests {
    /// A preset reading `w*.png` from `in/`, running `op`, writing PNGs.
    private func preset(_ op: String, in folder: URL, extra: String = "") throws -> String {
        try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "in/*.png" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "filter", "op": "\(op)"\(extra) },
                         { "id": "png", "op": "encode", "format": "png" }, { "id": "save", "op": "write", "path": "{name}.png" } ] }
            """, in: folder)
    }

    /// The standard deviation of the image's samples, by libvips' own `deviate`.
    private func deviation(_ file: URL) throws -> Double {
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["vips", "deviate", file.path]
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        return Double(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
    }

    private func mean(_ file: URL) throws -> Double {
        let means = try VipsImage.decode(try Data(contentsOf: file), origin: file.path).bandMeans()
        return means.reduce(0, +) / Double(means.count)
    }

    @Test func aScaffoldedPluginTestsBuildsAndRuns() throws {
        let folder = try Fixtures.temporaryDirectory("scaffold")
        let made = try CLIProcess.run(["plugin", "new", "Glow"], in: folder)
        #expect(made.status == 0, "\(made.stderr)")
        let package = folder.appendingPathComponent("Glow")
        for file in ["Package.swift", "plugin.json", "README.md", "Sources/Glow/Tone.swift", "Tests/GlowTests/ToneTests.swift",
                     "Kit/Sources/CKernel/include/workbench_kernel.h"] {
            #expect(FileManager.default.fileExists(atPath: package.appendingPathComponent(file).path), "\(file)")
        }
        // Its own unit test passes first time.
        let test = Process()
        test.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        test.arguments = ["swift", "test", "--package-path", package.path]
        test.standardOutput = FileHandle.nullDevice
        test.standardError = FileHandle.nullDevice
        try test.run()
        test.waitUntilExit()
        #expect(test.terminationStatus == 0)

        let plugins = folder.appendingPathComponent("plugins")
        let built = try CLIProcess.run(["plugin", "build", package.path, "--to", plugins.path])
        #expect(built.status == 0, "\(built.stderr)")
        #expect(built.stdout.contains("glow.tone"))

        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPlugins.blackImages(widths: [40], in: input)
        let path = try preset("glow.tone", in: folder, extra: #", "lift": 0.5, "warmth": 0"#)
        let run = try CLIProcess.run(["run", path, "--plugin-path", plugins.path, "--out", folder.appendingPathComponent("out").path])
        #expect(run.status == 0, "\(run.stderr)")
        // Black lifted half way: 128 of 255 everywhere.
        #expect(abs(try mean(folder.appendingPathComponent("out/w40.png")) - 127.5) < 1)
        // Making it again over itself is refused, not overwritten.
        #expect(try CLIProcess.run(["plugin", "new", "Glow"], in: folder).status == 2)
    }

    @Test func aScaffoldedAreaPluginBlursAroundEachPixel() throws {
        let folder = try Fixtures.temporaryDirectory("scaffold-area")
        #expect(try CLIProcess.run(["plugin", "new", "Soft", "--area"], in: folder).status == 0)
        let plugins = folder.appendingPathComponent("plugins")
        let built = try CLIProcess.run(["plugin", "build", folder.appendingPathComponent("Soft").path, "--to", plugins.path])
        #expect(built.status == 0, "\(built.stderr)")
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        // A photo as PNG (lossless out, so the comparison sees the kernel alone).
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["vips", "linear", Fixtures.samples.appendingPathComponent("Bridge.jpg").path,
                          input.appendingPathComponent("photo.png").path, "1", "0"]
        try make.run()
        make.waitUntilExit()
        let path = try preset("soft.soften", in: folder, extra: #", "radius": 4, "amount": 1"#)
        let out = folder.appendingPathComponent("out")
        let run = try CLIProcess.run(["run", path, "--plugin-path", plugins.path, "--out", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let original = try VipsImage.decode(try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg")), origin: "original")
        let softened = try VipsImage.decode(try Data(contentsOf: out.appendingPathComponent("photo.png")), origin: "softened")
        #expect(softened.width == original.width && softened.height == original.height)
        // A blur keeps the average and lowers the spread.
        let before = try original.bandMeans(), after = try softened.bandMeans()
        for (a, b) in zip(before, after) { #expect(abs(a - b) < 1.5) }
        #expect(try deviation(out.appendingPathComponent("photo.png")) < deviation(Fixtures.samples.appendingPathComponent("Bridge.jpg")))
    }

    @Test func theExamplePluginsRunIsolatedAndInProcessAlike() throws {
        let examples = try TestPlugins.examples.get()
        let preset = Fixtures.presets.appendingPathComponent("plugin-looks.json").path
        let folder = try Fixtures.temporaryDirectory("looks")
        let isolated = folder.appendingPathComponent("isolated"), inProcess = folder.appendingPathComponent("in-process")
        let first = try CLIProcess.run(["run", preset, "--plugin-path", examples.path, "--out", isolated.path, "-q"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try CLIProcess.run(["run", preset, "--plugin-path", examples.path, "--out", inProcess.path, "-q",
                                         "--trust-plugin", "filmlab", "--trust-plugin", "halftone"])
        #expect(second.status == 0, "\(second.stderr)")
        let names = Fixtures.files(in: isolated)
        #expect(names.count == 2 * Fixtures.samplePhotos.count)
        #expect(names == Fixtures.files(in: inProcess))
        for name in names {
            #expect(try Data(contentsOf: isolated.appendingPathComponent(name)) == Data(contentsOf: inProcess.appendingPathComponent(name)), "\(name)")
        }
        // The looks change the photos: halftone dots are pure ink or paper, mostly.
        let halftone = try VipsImage.decode(try Data(contentsOf: isolated.appendingPathComponent("Bridge-halftone.png")), origin: "halftone")
        #expect(halftone.width == 800)
        let listed = try CLIProcess.run(["filters", "filmlab.lightLeak", "--plugin-path", examples.path])
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("edge") && listed.stdout.contains("isolation"))
        let list = try CLIProcess.run(["plugin", "list", "--plugin-path", examples.path])
        #expect(list.stdout.contains("filmlab 1.0.0") && list.stdout.contains("halftone 1.0.0") && list.stdout.contains("ok"), "\(list.stdout)")
    }

    @Test func aKernelThatCrashesOrHangsFailsOnlyItsItem() throws {
        let folder = try Fixtures.temporaryDirectory("crash")
        let plugins = folder.appendingPathComponent("plugins"), input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPlugins.cPlugin(in: plugins)
        try TestPlugins.blackImages(widths: [40, 41, 42, 43], in: input)
        let path = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "in/*.png" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "crash", "op": "testkit.crash" }, { "id": "hang", "op": "testkit.hang" },
                         { "id": "png", "op": "encode", "format": "png" }, { "id": "save", "op": "write", "path": "{name}.png" } ] }
            """, in: folder)
        let out = folder.appendingPathComponent("out")
        let run = try CLIProcess.run(["run", path, "--plugin-path", plugins.path, "--out", out.path, "--plugin-timeout", "2"])
        #expect(run.status == 1)
        #expect(Fixtures.files(in: out) == ["w40.png", "w43.png"])
        let lines = run.stdout.split(separator: "\n") + run.stderr.split(separator: "\n")
        let w41 = lines.first { $0.contains("w41") && $0.contains("FAILED") } ?? ""
        let w42 = lines.first { $0.contains("w42") && $0.contains("FAILED") } ?? ""
        #expect(w41.contains("testkit.crash") && w41.contains("signal 11") && w41.contains("item w41"), "\(w41)")
        #expect(w42.contains("testkit.hang") && w42.contains("took over 2 s") && !w42.contains("w41"), "\(w42)")
        // Both kernels invert the images they do not trip on: black, inverted twice.
        #expect(try mean(out.appendingPathComponent("w40.png")) == 0)
    }

    @Test func crashesRestartTheHelperABoundedNumberOfTimes() throws {
        let folder = try Fixtures.temporaryDirectory("restarts")
        let plugins = folder.appendingPathComponent("plugins"), input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPlugins.cPlugin(in: plugins)
        // Six images 41 wide (each crashes the helper) and one that works.
        try TestPlugins.blackImages(widths: [41], in: input)
        for copy in 1...5 { try FileManager.default.copyItem(at: input.appendingPathComponent("w41.png"), to: input.appendingPathComponent("w41-\(copy).png")) }
        let run = try CLIProcess.run(["run", try preset("testkit.crash", in: folder), "--plugin-path", plugins.path,
                                      "--out", folder.appendingPathComponent("out").path, "--jobs", "1"])
        #expect(run.status == 1)
        let output = run.stdout + run.stderr
        // The helpers running when the first crash came (one per libvips thread, at most two
        // here), then 3 restarts.
        let crashes = output.components(separatedBy: "signal 11").count - 1
        #expect((4...5).contains(crashes), "\(output)")
        #expect(output.contains("not restarted again"), "\(output)")
    }

    @Test func aKernelErrorFailsItsItemWithThePluginsMessage() throws {
        let folder = try Fixtures.temporaryDirectory("fail")
        let plugins = folder.appendingPathComponent("plugins"), input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPlugins.cPlugin(in: plugins)
        try TestPlugins.blackImages(widths: [40], in: input)
        for trust in [[], ["--trust-plugin", "testkit"]] {
            let run = try CLIProcess.run(["run", try preset("testkit.fail", in: folder), "--plugin-path", plugins.path,
                                          "--out", folder.appendingPathComponent("out").path] + trust)
            #expect(run.status == 1)
            #expect((run.stdout + run.stderr).contains("the test kernel refuses 40x30 images"), "\(run.stdout + run.stderr)")
        }
    }

    @Test func brokenPluginsAreRefusedBeforeTheRunStarts() throws {
        let folder = try Fixtures.temporaryDirectory("refused")
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPlugins.blackImages(widths: [40], in: input)
        let path = try preset("testkit.invert", in: folder)
        // (what to make, what the refusal says)
        let cases: [(String, (URL) throws -> Void, String)] = [
            ("another API", { try TestPlugins.cPlugin(in: $0, api: 2) }, "plugin API 2"),
            ("a malformed manifest", { try TestPlugins.cPlugin(in: $0, manifest: "{ \"name\": \"testkit\",\n  \"version\": 1 ") },
             "plugin.json:2:"),
            ("no entry point", { try TestPlugins.cPlugin(in: $0, defines: ["NO_ENTRY"]) }, "no entry point \"workbench_plugin\""),
            ("another toolchain", { try TestPlugins.cPlugin(in: $0, defines: ["TOOLCHAIN=\"swift-5.9\""]) }, "built with swift-5.9"),
            ("a filter the library lacks", { try TestPlugins.cPlugin(in: $0, filters: ["invert", "sharpen"]) },
             "declared but not exported: sharpen"),
            ("a library of another name", { try TestPlugins.cPlugin(in: $0, defines: ["PLUGIN_NAME=\"other\""]) }, "calls itself \"other\""),
            ("no library", { let plugin = try TestPlugins.cPlugin(in: $0)
                try FileManager.default.removeItem(at: plugin.appendingPathComponent("libTestKit.so")) }, "libTestKit.so is not in"),
        ]
        for (label, make, message) in cases {
            let plugins = folder.appendingPathComponent("plugins-\(label.replacingOccurrences(of: " ", with: "-"))")
            try make(plugins)
            let out = folder.appendingPathComponent("out-\(plugins.lastPathComponent)")
            for trust in [[], ["--trust-plugin", "testkit"]] {
                let run = try CLIProcess.run(["run", path, "--plugin-path", plugins.path, "--out", out.path] + trust)
                #expect(run.status == 2, "\(label): \(run.stderr)")
                #expect(run.stderr.contains(message), "\(label): \(run.stderr)")
                #expect(Fixtures.files(in: out).isEmpty, "\(label)")
            }
            let list = try CLIProcess.run(["plugin", "list", "--plugin-path", plugins.path])
            #expect(list.stdout.contains("refused") && list.stdout.contains(message), "\(label): \(list.stdout)")
        }
        // Two plugins of one name: the second on the path is refused, the first runs.
        let first = folder.appendingPathComponent("first"), second = folder.appendingPathComponent("second")
        try TestPlugins.cPlugin(in: first)
        try TestPlugins.cPlugin(in: second)
        let clash = try CLIProcess.run(["plugin", "list", "--plugin-path", first.path, "--plugin-path", second.path])
        #expect(clash.stdout.contains("another plugin named \"testkit\" comes first"), "\(clash.stdout)")
        let run = try CLIProcess.run(["run", path, "--plugin-path", first.path, "--plugin-path", second.path,
                                      "--out", folder.appendingPathComponent("out-clash").path])
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// A plugin trusted to run in-process cannot be stopped mid-call: the first Ctrl-C waits for
    /// it, the second quits at once and says what was done.
    @Test func aSecondCtrlCQuitsAtOnceAndSaysWhatWasDone() throws {
        let folder = try Fixtures.temporaryDirectory("interrupt-twice")
        let plugins = folder.appendingPathComponent("plugins"), input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPlugins.cPlugin(in: plugins)
        try TestPlugins.blackImages(widths: [10, 42], in: input)
        let out = folder.appendingPathComponent("out")
        let run = try CLIProcess(["run", try preset("testkit.hang", in: folder, extra: #", "isolation": "none""#), "--plugin-path", plugins.path,
                                  "--trust-plugin", "testkit", "--out", out.path, "--progress", "plain"])
        let deadline = Date().addingTimeInterval(300)  // only a hang waits this long
        while !run.stdoutSoFar.contains("w10") && Date() < deadline { usleep(50_000) }
        #expect(run.stdoutSoFar.contains("w10"), "the 10 px image was not made")
        // The first waits for the plugin, which never returns; the second quits at once.
        run.interruptAndAwaitNotice()
        run.interrupt()
        let result = run.wait()
        #expect(result.status == 130, "\(result.stderr)")
        #expect(result.stderr.contains("Quit at once: 1 of 2 items done (1 succeeded); files written are kept"), "\(result.stderr)")
        #expect(Fixtures.files(in: out).filter { $0.hasSuffix(".png") } == ["w10.png"])
    }

    @Test func ctrlCWithAHelperRunningLeavesNoProcessBehind() throws {
        let folder = try Fixtures.temporaryDirectory("interrupt")
        let plugins = folder.appendingPathComponent("plugins"), input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPlugins.cPlugin(in: plugins)
        try TestPlugins.blackImages(widths: [42], in: input)
        let run = try CLIProcess(["run", try preset("testkit.hang", in: folder), "--plugin-path", plugins.path,
                                  "--out", folder.appendingPathComponent("out").path])
        func helpers() -> [Int32] {
            let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
            return pids.filter { pid in
                let line = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
                let text = String(decoding: line, as: UTF8.self)
                return text.contains("plugin-helper") && text.contains(plugins.path)
            }
        }
        // The hanging region is under way once a helper thread sits in pause() (x86-64's
        // syscall 34, from /proc/PID/task/*/syscall); elsewhere, once a helper runs.
        func hanging() -> Bool {
            #if arch(x86_64)
            return helpers().contains { pid in
                let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
                return tasks.contains { task in
                    let call = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)) ?? ""
                    return call.hasPrefix("34 ")
                }
            }
            #else
            return !helpers().isEmpty
            #endif
        }
        let deadline = Date().addingTimeInterval(300)  // only a hang waits this long
        while !hanging() && Date() < deadline { usleep(50_000) }
        #expect(hanging(), "no helper reached the hanging region")
        run.interrupt()
        let result = run.wait()
        #expect(result.status == 130, "\(result.stderr)")
        let gone = Date().addingTimeInterval(60)
        while !helpers().isEmpty && Date() < gone { usleep(50_000) }
        #expect(helpers().isEmpty)
    }
}
