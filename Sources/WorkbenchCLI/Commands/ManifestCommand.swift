import ArgumentParser
import Foundation
import WorkbenchCore
import WorkbenchNet

/// `workbench manifest`: the record of what a run made, kept in its output folder.
struct ManifestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Work with the manifest a run keeps in its output folder (workbench-manifest.jsonl).",
        subcommands: [ManifestShowCommand.self, ManifestMergeCommand.self], defaultSubcommand: ManifestShowCommand.self)
}

/// `workbench manifest show DIR`: the manifest as one readable JSON document.
struct ManifestShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the manifest of an output folder as one JSON document: every input and the files made from it.",
        discussion: """
            The folder keeps its manifest as a log (workbench-manifest.jsonl, one line per record, later \
            lines replacing earlier ones); this prints what it says, sorted by input and preset. The \
            same work prints the same document, whether one process did it or several shards.

            Example:
              workbench manifest show out > manifest.json
            """)

    @Argument(help: "The output folder, or the s3://bucket/prefix/ a run wrote into.")
    var folder: String

    /// A bucket that cannot be used at all (no credentials, a wrong key or secret, no such
    /// bucket) is exit 2, as for `run`; a manifest that cannot be read is 1.
    static func status(of error: any Error) -> Int32 {
        if case .unusableBucket? = error as? WorkbenchError { return ExitStatus.badPreset }
        return 1
    }

    /// The output folder `folder` names, as a standard path; refused when it is not a folder.
    static func localFolder(_ folder: String, what: String) throws -> String {
        let root = URL(fileURLWithPath: folder).standardizedFileURL.path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
            Terminal.error("\"\(root)\" is not a folder; give \(what).")
            throw ExitCode(ExitStatus.badPreset)
        }
        return root
    }

    func run() throws {
        // A bucket's root holds the manifest's segments, read into a local folder, while it lives.
        let bucket = S3Location.isS3(folder) ? try Terminal.saying(exit: Self.status) {
            try S3Output.root(folder, shard: nil, client: S3Client(settings: S3Settings()), run: false)
        } : nil
        let root = try bucket?.path ?? Self.localFolder(folder, what: "the output folder of a run")
        try Terminal.saying(exit: Self.status) {
            let (document, warnings) = try ManifestStore.document(root: root)
            for warning in warnings { Terminal.error(warning) }
            FileHandle.standardOutput.write(try document.encoded())
        }
        withExtendedLifetime(bucket) {}
    }
}

/// `workbench manifest merge DIR`: folds the parts shards wrote into one manifest.
struct ManifestMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Fold the manifest logs of a sharded run (workbench-manifest.shard-I-of-N.jsonl) into workbench-manifest.jsonl.",
        discussion: """
            Run it once every shard has finished (it refuses while one is still running). Items that \
            a killed shard finished are in its log too. The result says what one unsharded run would \
            have said (compare with workbench manifest show).

            Example:
              workbench manifest merge /shared/out
            """)

    @Argument(help: "The output folder (or s3://bucket/prefix/) the shards wrote into.")
    var folder: String

    func run() throws {
        if S3Location.isS3(folder) {
            try Terminal.saying(exit: ManifestShowCommand.status) {
                let bucket = try S3Output.root(folder, shard: nil, client: S3Client(settings: S3Settings()), run: false)
                // A shard still running keeps adding segments: merging now would fold only part
                // of its work, and its later segments would be folded by nobody.
                if let running = (bucket.remote as? S3Output)?.runningShards, !running.isEmpty {
                    let said = running.map { "\($0.part) (its lease renewed \(Int($0.secondsSinceRenewal)) s ago)" }.joined(separator: ", ")
                    Terminal.error("Not merged: \(said) still running into \(folder); merge once every shard has ended "
                                   + "(a killed shard's lease expires \(Int(S3Output.leaseExpiry / 60)) minutes after its last renewal).")
                    throw ExitCode(ExitStatus.badPreset)
                }
                let merged = try ManifestStore.merge(root: bucket.path)
                // In a bucket the merged log replaces every segment, compacted.
                try bucket.remote?.saved(log: bucket.path + "/" + ManifestStore.fileName, rewritten: true)
                Terminal.out("Merged \(merged.parts) part\(merged.parts == 1 ? "" : "s") into \(bucket.location)workbench-manifest/: \(merged.items) input\(merged.items == 1 ? "" : "s").")
            }
            return
        }
        let root = try ManifestShowCommand.localFolder(folder, what: "the output folder the shards wrote into")
        try Terminal.saying(exit: { _ in 1 }) {
            let merged = try ManifestStore.merge(root: root)
            Terminal.out("Merged \(merged.parts) part\(merged.parts == 1 ? "" : "s") into \(root)/\(ManifestStore.fileName): \(merged.items) input\(merged.items == 1 ? "" : "s").")
        }
    }
}
