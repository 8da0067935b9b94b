import Foundation
import Testing
import WorkbenchTestSupport

/// `packaging/build-image` as a user runs it: the OCI archive it writes is unpacked by hand
/// (index → manifest → config and layer, each checked against its digest), and the bundled
/// presets run inside the image's file tree as its user makes the same bytes as on the host.
@Suite(.serialized) struct ContainerImageTests {
    /// Runs a command to its end; standard error is kept with standard output.
    @discardableResult
    static func shell(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        let process = Process(), pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if let environment { process.environment = environment }
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    private static func json(_ url: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
    }

    /// The blob a descriptor names, after checking its size and SHA-256.
    private static func blob(_ descriptor: [String: Any]?, in layout: URL) throws -> URL {
        let digest = try #require(descriptor?["digest"] as? String)
        #expect(digest.hasPrefix("sha256:"))
        let file = layout.appendingPathComponent("blobs/sha256/" + digest.dropFirst("sha256:".count))
        let sum = try shell(["/usr/bin/sha256sum", file.path]).output.split(separator: " ").first.map(String.init)
        #expect("sha256:" + (sum ?? "") == digest)
        #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) == descriptor?["size"] as? Int)
        return file
    }

    @Test func theImageRunsTheBundledPresetsAsTheHostDoes() throws {
        let folder = try Fixtures.temporaryDirectory("image")
        let archive = folder.appendingPathComponent("image.oci.tar")
        let script = Fixtures.packageRoot.appendingPathComponent("packaging/build-image").path
        let built = try Self.shell([script, "--binary", CLIProcess.executable.path, "--output", archive.path])
        #expect(built.status == 0, "\(built.output)")
        // Written elsewhere than here: the load command names where.
        #expect(built.output.contains("podman load -i \(archive.path)"), "\(built.output)")
        let version = try CLIProcess.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let number = String(version.split(separator: " ").first ?? "")

        // The OCI layout, read by hand.
        let layout = folder.appendingPathComponent("layout")
        try FileManager.default.createDirectory(at: layout, withIntermediateDirectories: true)
        #expect(try Self.shell(["/usr/bin/tar", "-xf", archive.path, "-C", layout.path]).status == 0)
        #expect(try Self.json(layout.appendingPathComponent("oci-layout"))["imageLayoutVersion"] as? String == "1.0.0")
        let index = try Self.json(layout.appendingPathComponent("index.json"))
        let entry = (index["manifests"] as? [[String: Any]])?.first
        #expect((entry?["annotations"] as? [String: String])?["org.opencontainers.image.ref.name"] == "filterworkbench:\(number)")
        let manifest = try Self.json(Self.blob(entry, in: layout))
        let config = try Self.json(Self.blob(manifest["config"] as? [String: Any], in: layout))
        let settings = config["config"] as? [String: Any] ?? [:]
        #expect(settings["User"] as? String == "1000:1000" && settings["WorkingDir"] as? String == "/work")
        #expect(settings["Entrypoint"] as? [String] == ["/usr/local/bin/workbench"])
        // The label says what `--version` says.
        let labels = settings["Labels"] as? [String: String] ?? [:]
        #expect(labels["org.opencontainers.image.version"] == number)
        #expect(version.contains("libvips \(labels["io.filterworkbench.libvips"] ?? "?"), plugin API \(labels["io.filterworkbench.plugin-api"] ?? "?")"),
                "\(version) \(labels)")
        let layer = try Self.blob((manifest["layers"] as? [[String: Any]])?.first, in: layout)
        let root = folder.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        #expect(try Self.shell(["/usr/bin/tar", "-xzf", layer.path, "-C", root.path]).status == 0)
        // Nothing of the host's but what was listed: no shell, no package manager.
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("bin/sh").path))

        // Inside the tree as the image's user, with /proc of its own, as a container runtime would.
        let asUser = getuid() == 0 ? ["/usr/sbin/chroot", "--userspec=1000:1000"] : ["/usr/sbin/chroot"]
        let launcher = ["/usr/bin/unshare"] + (getuid() == 0 ? [] : ["--map-root-user"])
            + ["--mount", "--pid", "--fork", "--mount-proc=\(root.path)/proc"] + asUser + [root.path]
        let environment = ["PATH": "/usr/local/bin", "HOME": "/home/workbench", "XDG_CACHE_HOME": "/tmp/cache"]
        let inside = try Self.shell(launcher + ["/usr/local/bin/workbench", "--version"], environment: environment)
        #expect(inside.output.trimmingCharacters(in: .whitespacesAndNewlines) == version, "\(inside.output)")
        for preset in ["sepia-thumbnails", "watermark-sheet", "film-look", "responsive-images"] {
            let run = try Self.shell(launcher + ["/usr/local/bin/workbench", "run", "/usr/local/share/workbench/presets/\(preset).json",
                                                 "--out", "/work/\(preset)", "--progress", "none"], environment: environment)
            #expect(run.status == 0, "\(preset) in the image: \(run.output)")
            let host = folder.appendingPathComponent("host/\(preset)")
            let onHost = try CLIProcess.run(["run", Fixtures.presets.appendingPathComponent("\(preset).json").path, "--out", host.path, "--progress", "none"])
            #expect(onHost.status == 0, "\(onHost.stderr)")
            let image = root.appendingPathComponent("work/\(preset)")
            let files = Fixtures.files(in: host)
            #expect(!files.isEmpty && Fixtures.files(in: image) == files, "\(preset)")
            for file in files {
                let same = try Data(contentsOf: host.appendingPathComponent(file)) == Data(contentsOf: image.appendingPathComponent(file))
                #expect(same, "\(preset)/\(file) differs between the image and the host")
            }
        }
    }
}
