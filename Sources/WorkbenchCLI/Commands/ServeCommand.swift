import ArgumentParser
import Foundation
import WorkbenchCore
import WorkbenchNet
import WorkbenchServe
import WorkbenchVips

/// `workbench serve`: the live workbench — a page that shows every item beside its outputs,
/// runs what is on screen first, and runs again what a saved edit of the preset changed.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Work on a preset live in the browser: items run as you look at them, edits run again what they change.",
        discussion: """
            Prints a URL with a secret token; open it in a browser on this machine. The page shows \
            each input beside its output and state; what is on screen runs first, what you scroll \
            away from waits and is cancelled after a few seconds, closing the page stops the work. \
            Save the preset and it is checked again (errors on the page, with line and column); \
            items then run again as you look at them, and files whose recipe did not change are left \
            as they are. Ctrl-C stops the server.

            Examples:
              workbench serve Presets/sepia-thumbnails.json
              workbench serve look.json ~/Pictures/trip --out /tmp/trip
              workbench serve look.json --port 8080
            """)

    @Argument(help: "The preset file (watched for changes).")
    var preset: String

    @Argument(help: "URLs, image files or folders to work on instead of the preset's inputs.")
    var inputs: [String] = []

    @Option(name: .long, help: ArgumentHelp("The output root; write paths are relative to it.", valueName: "dir"))
    var out: String?

    @Option(name: .long, help: ArgumentHelp("The port to listen on (0: a free one).", valueName: "n"))
    var port: Int = 0

    @Option(name: .long, help: ArgumentHelp("The address to listen on. Anything but 127.0.0.1 lets other machines reach the page (with the token).", valueName: "address"))
    var host: String = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("Seconds an item scrolled out of view waits before it is cancelled.", valueName: "seconds"))
    var offScreenGrace: Double = 5

    @Option(name: .long, help: ArgumentHelp("Longest edge, in pixels, of the copies of the items that previews of unsaved values run on.", valueName: "pixels"))
    var previewSize: Int = 512

    @OptionGroup var plugins: PluginOptions

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if !(0...65_535).contains(port) { throw ValidationError("--port takes 0 to 65535.") }
        if !(offScreenGrace >= 0 && offScreenGrace <= 3_600) { throw ValidationError("--off-screen-grace takes 0 to 3600 seconds.") }
        if !(64...4096).contains(previewSize) { throw ValidationError("--preview-size takes 64 to 4096 pixels.") }
    }

    func run() async throws {
        // Untrusted loaders stay off: the page's photos may come from anyone.
        let logger = RunSetup.startLibraries(output, allowUntrusted: false)
        let catalogue = plugins.catalogue()
        defer { catalogue.shutdown() }
        let cwd = FileManager.default.currentDirectoryPath
        let presetPath = URL(fileURLWithPath: preset, relativeTo: URL(fileURLWithPath: cwd + "/")).standardizedFileURL.path
        if let out, out.lowercased().hasPrefix("s3://") {
            Terminal.error("serve writes into a folder (saved files must be shown at once); give --out DIR, and run the preset with --out \(out) once it is tuned.")
            throw ExitCode(ExitStatus.badPreset)
        }
        // Where the preset's buckets are (its "s3" key), before its inputs are listed. A preset
        // that does not load is said by the session just below, with its problems.
        let bucket = (try? PresetLoader(registry: BuiltinOps.registry(plugins: catalogue)).load(file: presetPath))?.bucket
        let s3 = S3Client(bucket: bucket)
        var services = StageServices()
        services[S3Client.Key.self] = s3
        let session = LiveSession(settings: .init(
            presetPath: presetPath, inputs: inputs, out: out.map { URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: cwd + "/")).standardizedFileURL.path },
            workingDirectory: cwd,
            registry: { BuiltinOps.registry(plugins: catalogue) },
            versions: { RunVersions.of($0, catalogue: catalogue) },
            prepare: { preset in try catalogue.prepare(for: preset) },
            offScreenGrace: offScreenGrace, previewSize: previewSize, remote: S3Listing(client: s3),
            services: services))
        do {
            try await session.start()
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(ExitStatus.badPreset)
        }
        let stop = CancellationToken()
        let trap = SignalTrap(token: stop, notice: { _ in Terminal.error("Stopping the server.") })
        let server = LiveServer(session: session, host: host, port: port)
        do {
            try await server.run(logger: logger, announce: { url in
                Terminal.out("Live workbench: \(url)")
                Terminal.out("Open it in a browser on this machine; Ctrl-C stops the server.")
            }, stop: stop)
        } catch {
            Terminal.error(ServeError.cannotListen(host: host, port: port, reason: "\(error)").description)
            throw ExitCode(ExitStatus.badPreset)
        }
        withExtendedLifetime(trap) {}
        if stop.isCancelled { throw ExitCode(ExitStatus.interrupted) }
    }
}
