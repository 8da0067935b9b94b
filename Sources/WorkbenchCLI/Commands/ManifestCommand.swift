import ArgumentParser
import Foundation
import WorkbenchCore

/// `workbench manifest`: the record of what a run made, kept in its output folder.
struct ManifestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Work with the manifest a run keeps in its output folder (workbench-manifest.json).",
        subcommands: [ManifestMergeCommand.self])
}

/// `workbench manifest merge DIR`: folds the parts shards wrote into one manifest.
struct ManifestMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Fold the manifest parts of a sharded run (workbench-manifest.shard-I-of-N.json) into workbench-manifest.json.",
        discussion: """
            Run it once every shard has finished (it refuses while one is still running). Items that \
            a killed shard finished are taken from its journal. The result is the manifest one \
            unsharded run would have written.

            Example:
              workbench manifest merge /shared/out
            """)

    @Argument(help: "The output folder the shards wrote into.")
    var folder: String

    func run() throws {
        let root = URL(fileURLWithPath: folder).standardizedFileURL.path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
            Terminal.error("\"\(root)\" is not a folder; give the output folder the shards wrote into.")
            throw ExitCode(ExitStatus.badPreset)
        }
        do {
            let merged = try ManifestStore.merge(root: root)
            Terminal.out("Merged \(merged.parts) part\(merged.parts == 1 ? "" : "s") into \(root)/\(ManifestStore.fileName): \(merged.items) input\(merged.items == 1 ? "" : "s").")
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(1)
        }
    }
}
