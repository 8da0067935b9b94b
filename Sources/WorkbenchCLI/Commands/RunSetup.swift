import ArgumentParser
import Foundation
import Logging
import WorkbenchCore
import WorkbenchNet
import WorkbenchPlugins
import WorkbenchVips

/// What `run` and `watch` (and, for its libraries, `serve`) do alike before their work starts.
enum RunSetup {
    /// Logging, and libvips' process-wide settings: its own prints off standard output (the
    /// report), its warnings to the log, untrusted operations only when asked.
    static func startLibraries(_ output: OutputOptions, allowUntrusted: Bool) -> Logger {
        let logger = Terminal.startLogging(output)
        VipsRuntime.sendLibraryPrintsToStandardError()
        VipsRuntime.warnings.withLock { $0 = logger }
        if allowUntrusted { VipsRuntime.untrustedOperationsAllowed = true }
        return logger
    }

    /// The preset with its `--set`s, its warnings said; refused (exit 2) when the process's
    /// memory limit cannot hold what its plan keeps per worker. The check at start knew no plan.
    static func load(_ file: String, overrides: [PresetOverride], catalogue: PluginCatalogue, jobs: Int?) throws -> Preset {
        let loaded = try PresetLoader(registry: BuiltinOps.registry(plugins: catalogue)).load(file: file, overrides: overrides)
        for warning in loaded.warnings { Terminal.error(warning.description) }
        if let refusal = ProcessLimits.refusalToRun(workers: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
                                                    perWorker: RunFootprint.perWorker(loaded)) {
            Terminal.error(refusal)
            throw ExitCode(ExitStatus.badPreset)
        }
        return loaded
    }

    /// The output root for a folder or an `s3://` prefix; a bucket's uploads wait on the
    /// network, not the disk, so its `disk` queue takes more at once unless the preset says.
    static func outputRoot(_ destination: String, shard: Shard?, client: S3Client, preset: inout Preset) throws -> OutputRoot {
        guard S3Location.isS3(destination) else { return try OutputRoot(destination) }
        preset = preset.withDefault(QueueSpec(name: "disk", concurrency: .fixed(S3Output.uploadsInFlight), qos: .utility))
        return try S3Output.root(destination, shard: shard, client: client)
    }

    /// What a run or a watch has opened once it knows its preset and where outputs go.
    struct Opened {
        var preset: Preset
        let root: OutputRoot
        let manifest: RunManifest
        let s3: S3Client
    }

    /// Opens the output root (a folder or an `s3://` prefix), loads the plugins the preset
    /// uses (a plugin that cannot run stops the run before any item starts) and reads the
    /// manifest, saying its warnings.
    static func open(_ preset: Preset, into destination: String, client s3: S3Client, catalogue: PluginCatalogue, shard: Shard? = nil,
                     force: Bool = false, trustsManifest: Bool = false) throws -> Opened {
        var preset = preset
        let root = try outputRoot(destination, shard: shard, client: s3, preset: &preset)
        try catalogue.prepare(for: preset)
        let manifest = try RunManifest(preset: preset, output: root, versions: RunVersions.of(preset, catalogue: catalogue),
                                       force: force, shard: shard, trustsManifest: trustsManifest)
        for warning in manifest.warnings { Terminal.error(warning) }
        return Opened(preset: preset, root: root, manifest: manifest, s3: s3)
    }

    /// Says what an interrupted run left that was cleared away: unfinished uploads, temporary files.
    static func sayWhatWasCleared(_ root: OutputRoot) {
        if let remote = root.remote, remote.abortedUploads > 0 {
            let count = remote.abortedUploads
            Terminal.error("Aborted \(count) unfinished upload\(count == 1 ? "" : "s") that an interrupted run left in \(remote.location).")
        }
        let stale = root.removeStaleTemporaryFiles()
        if !stale.isEmpty {
            Terminal.error("Removed \(stale.count) unfinished file\(stale.count == 1 ? "" : "s") that an interrupted run left in \(root.path).")
        }
    }
}
