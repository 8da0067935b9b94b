import ArgumentParser
import Foundation
import WorkbenchCore
import WorkbenchPlugins
import WorkbenchVips

/// `--force`, `--trust-manifest`, `--shard`, `--per-shard-sheets`: what a rerun redoes, and which part of the
/// items this process takes.
struct IncrementalOptions: ParsableArguments {
    @Flag(name: .long, help: "Redo every file, even those whose recipe is unchanged since the last run.")
    var force = false

    @Flag(name: .long, help: "With an s3:// output: take the manifest's word that recorded outputs are there, without listing the output prefix (one request per 1,000 objects saved; a deleted object is then not made again).")
    var trustManifest = false

    @Option(name: .long, help: ArgumentHelp(
        "Run only shard I of N (0 ≤ I < N), chosen by a stable hash of each input; 'auto/N' or 'auto' take I (and N) from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX.",
        valueName: "I/N"))
    var shard: String?

    @Flag(name: .long, help: "With --shard, let each shard write its own contact sheets (and other run-scope files), named NAME.shard-I-of-N.EXT.")
    var perShardSheets = false

    func validate() throws {
        if perShardSheets && shard == nil { throw ValidationError("--per-shard-sheets goes with --shard.") }
    }

    /// The shard asked for, if any.
    func resolvedShard() throws(WorkbenchError) -> Shard? {
        try shard.map { text throws(WorkbenchError) in try Shard.parse(text, environment: ProcessInfo.processInfo.environment) }
    }

    /// Refuses a sharded run of a preset that gathers every item into one file, unless each
    /// shard may write its own.
    func checkFanIns(of preset: Preset, shard: Shard?) throws(WorkbenchError) {
        guard let shard, shard.count > 1, !perShardSheets else { return }
        let gathering = preset.nodes.filter { node in
            node.inputs.contains { if case .reference(_, fanIn: true) = $0.slot { return true } else { return false } }
        }
        guard let first = gathering.first else { return }
        throw .badShard("""
            \(shard): "\(first.id)" gathers every item into one result (a fan-in), and each shard sees only its own items. \
            Run this preset without --shard, or add --per-shard-sheets to have each shard write its own \
            (e.g. sheet.\(shard.label).jpg)
            """)
    }
}

/// The versions that go into reports and recipes: workbench, libvips, and each plugin the
/// preset uses — its declared version, and what it is (`PluginIdentity`: the hash of its
/// manifest and library), so a rebuilt plugin redoes its files whatever its version says.
enum RunVersions {
    static func of(_ preset: Preset, catalogue: PluginCatalogue) -> [String: String] {
        var versions = ["workbench": Release.version, "libvips": VipsRuntime.version]
        for node in preset.nodes where node.op.name.contains(".") && !node.op.name.hasPrefix("vips.") {
            let name = String(node.op.name.split(separator: ".")[0])
            guard versions["plugin " + name] == nil,
                  let manifest = catalogue.entries.first(where: { $0.name == name && $0.refusal == nil })?.manifest else { continue }
            versions["plugin " + name] = manifest.version
            versions["plugin " + name + " build"] = PluginIdentity.of(manifest)
        }
        return versions
    }
}
