import Foundation

/// Paths and helpers shared by the test targets.
public enum Fixtures {
    /// The package's root folder.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static let presets = packageRoot.appendingPathComponent("Presets")
    public static let samples = presets.appendingPathComponent("samples")

    /// A 480×300 photo with what a real camera and editor wrote: Sony maker notes, a GPS
    /// position, an embedded EXIF preview of the whole original, XMP, a comment, 350 dpi
    /// (`Photos/ATTRIBUTION.md`).
    public static let cameraPhoto = supportFile("Photos/camera-cups.jpg")

    /// The sample photos, sorted by name.
    public static var samplePhotos: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: samples.path)) ?? []
        return names.filter { $0.hasSuffix(".jpg") }.sorted().map { samples.appendingPathComponent($0) }
    }

    public static func supportFile(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Writes a preset file into `folder` and returns its path.
    public static func writePreset(_ json: String, in folder: URL, name: String = "preset.json") throws -> String {
        let url = folder.appendingPathComponent(name)
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// A new empty folder in this test process's own folder under the system's temporary one.
    public static func temporaryDirectory(_ label: String = "test") throws -> URL {
        let url = URL(fileURLWithPath: testsFolder).appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// One folder of `name` for the whole process, inside `testsFolder` (a cache several tests
    /// share, such as photos made once).
    public static func processFolder(_ name: String) throws -> URL {
        let url = URL(fileURLWithPath: testsFolder).appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Where this process's temporary folders go; removed when it exits. Each folder used to stay
    /// behind: thousands per run of the suite, with copies of photos, until a disk filled up.
    static let testsFolder: String = {
        // Short: paths inside it appear in lines some tests measure against a terminal's width.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wbt-\(getpid())").path
        atexit { try? FileManager.default.removeItem(atPath: Fixtures.testsFolder) }
        return path
    }()

    /// The manifest's log, its shards' logs, and manifests from before the log.
    public static func isManifest(_ name: String) -> Bool {
        name.hasPrefix("workbench-manifest") || name.hasPrefix(".workbench-manifest")
    }

    /// Every regular file below `folder`, as paths relative to it, sorted; the manifest an
    /// incremental run keeps there only when asked for.
    public static func files(in folder: URL, includingManifest: Bool = false) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var files: [String] = []
        while let next = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(next).path, isDirectory: &isFolder),
               !isFolder.boolValue, includingManifest || !Self.isManifest((next as NSString).lastPathComponent) {
                files.append(next)
            }
        }
        return files.sorted()
    }

    /// Runs a shell command in `folder`, for files made by libvips' and libjpeg's own tools;
    /// throws with the command when it fails.
    public static func sh(_ command: String, in folder: URL) throws {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", command]
        shell.currentDirectoryURL = folder
        try shell.run()
        shell.waitUntilExit()
        guard shell.terminationStatus == 0 else { throw ProgressiveFiles.ToolFailure(text: "sh -c \(command): exit \(shell.terminationStatus)") }
    }
}

extension Fixtures {
    /// Writes an 8-bit, one-band greyscale PNG (a soft gradient), made by `make_grey.py` with
    /// Python's standard library so that the input does not depend on the code under test.
    public static func writeGreyscale(to destination: URL, width: Int = 800, height: Int = 600) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", supportFile("make_grey.py").path, destination.path, "\(width)", "\(height)"]
        try process.runToExit()
        guard process.terminationStatus == 0 else { throw TestFailure("make_grey.py failed") }
    }
}

extension Fixtures {
    /// Runs the `vips` command-line tool (libvips-tools), e.g. to make test images of odd shapes
    /// with a program other than the one under test; what it printed.
    @discardableResult
    public static func vips(_ arguments: [String]) throws -> String {
        guard let tool = ["/usr/bin/vips", "/usr/local/bin/vips"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestFailure("this test needs the vips command-line tool: apt-get install libvips-tools")
        }
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = output
        let exited = try process.runSignallingExit()
        // Read to the end before waiting: a full pipe would otherwise stop the tool.
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        Process.closeReadEnds(output)
        exited.wait()
        guard process.terminationStatus == 0 else { throw TestFailure("vips \(arguments.joined(separator: " ")) failed") }
        return text
    }
}
