/// Errors from the preset loader, the scheduler and the built-in `read` and `write` stages.
public enum WorkbenchError: Error, Sendable, CustomStringConvertible {
    /// The preset has problems; every one found is listed.
    case invalidPreset([Diagnostic])
    /// The preset file could not be read at all.
    case unreadablePreset(path: String, reason: String)
    /// The inputs could not be listed (a missing list file, a glob that matches nothing, …).
    case badInputs(String)
    /// A local input could not be read.
    case readFailed(path: String, reason: String)
    /// An input is larger than the stage's byte cap.
    case inputTooLarge(path: String, size: Int, limit: Int)
    /// The output root cannot be created or is not a folder.
    case unusableOutputRoot(path: String, reason: String)
    /// A path in the preset leads outside the preset's folder (absolute, `..`, a symbolic link).
    case outsidePresetFolder(path: String, reason: String)
    /// A rendered output path would leave the output root.
    case pathOutsideOutputRoot(path: String, root: String)
    /// Two items rendered the same output path in one run.
    /// `firstItem`: the item's name in quotes, or its number when the name was not kept.
    case outputCollision(path: String, firstItem: String, item: String)
    /// Writing an output file failed; nothing was left at the destination.
    case writeFailed(path: String, reason: String)
    /// The disk holding the output is full or read-only: no later write can succeed, so the run
    /// stops. Nothing was left at the path.
    case outputStopped(path: String, reason: String)
    /// The node was cancelled before or while it ran.
    case cancelled
    /// A node received payloads of the wrong kind (a bug in graph validation if it happens).
    case unexpectedInput(node: String, expected: String)
    /// A run-scope node's fan-in (`"@id[*]"`, parameter `parameter`) gathered nothing: every
    /// item failed, or there were none.
    case emptyFanIn(node: String, parameter: String)
    /// `--shard` was not I/N with 0 ≤ I < N, or `auto` found no job-array index.
    case badShard(String)
    /// Another run is writing the same manifest (the same output root and shard) right now.
    case manifestBusy(path: String)
    /// The manifest could not be written; the outputs are in place, but the next run redoes them.
    case manifestUnwritable(path: String, reason: String)
    /// A bucket given as the output cannot be used (credentials, a missing bucket, the network).
    case unusableBucket(location: String, reason: String)
    /// The listing of a bucket output failed after its first page: what it did not reach was
    /// made again.
    case listingStopped(location: String, reason: String)

    public var description: String {
        switch self {
        case .invalidPreset(let diagnostics):
            let errors = diagnostics.filter { $0.severity == .error }.count
            return "The preset has \(errors) error\(errors == 1 ? "" : "s"):\n"
                + diagnostics.map(\.description).joined(separator: "\n")
        case .unreadablePreset(let path, let reason):
            return "Cannot read the preset \"\(path)\": \(Self.clause(reason))."
        case .badInputs(let message):
            return message
        case .readFailed(let path, let reason):
            return "Cannot read \"\(path)\": \(Self.clause(reason))."
        case .inputTooLarge(let path, let size, let limit):
            return "\"\(path)\" is \(size) bytes, more than the limit of \(limit) bytes; raise the stage's \"maxBytes\" to allow it."
        case .unusableOutputRoot(let path, let reason):
            return "Cannot use \"\(path)\" as the output folder: \(Self.clause(reason)). Choose another with --out."
        case .outsidePresetFolder(let path, let reason):
            return "Refused to read \"\(path)\": \(reason)."
        case .pathOutsideOutputRoot(let path, let root):
            return "The output path \"\(path)\" would leave the output root \"\(root)\"; it was not written."
        case .outputCollision(let path, let firstItem, let item):
            return "\"\(path)\" is also the output of \(firstItem), so \(item) fails on every run until the two differ: one file cannot come from two inputs. Add {ext}, {dir}, {index} or {hash} to the path template to keep both, or remove one input."
        case .writeFailed(let path, let reason):
            return "Cannot write \"\(path)\": \(Self.clause(reason)). Nothing was left at that path."
        case .outputStopped(let path, let reason):
            return "Cannot write \"\(path)\": \(reason). The run stopped, since no later file could be written either; free space (or make the disk writable) and run again: files already written are kept."
        case .cancelled:
            return "Cancelled."
        case .unexpectedInput(let node, let expected):
            return "Node \"\(node)\" expected \(expected) from upstream."
        case .emptyFanIn(let node, let parameter):
            return "Node \"\(node)\" has nothing to work on: its \"\(parameter)\" gathers every item's output, and no item made one (each failed, or there were none). Fix the failed items and run again."
        case .badShard(let message):
            return "--shard \(message)."
        case .manifestBusy(let path):
            return "Another workbench run is writing \"\(path)\" (the same output folder and shard); wait for it to end, or give this run another --out."
        case .manifestUnwritable(let path, let reason):
            return "Cannot write the manifest \"\(path)\": \(Self.clause(reason)). The files are in place, but the next run will redo them."
        case .unusableBucket(let location, let reason):
            return "Cannot write into \(location): \(Self.clause(reason))."
        case .listingStopped(let location, let reason):
            return "The listing of \(location) stopped part way (\(Self.clause(reason))): the outputs it did not reach were made again rather than taken as there. Nothing is missing; the next run lists them again."
        }
    }

    /// A reason put inside a sentence: without its own full stop.
    private static func clause(_ reason: String) -> String {
        reason.hasSuffix(".") ? String(reason.dropLast()) : reason
    }
}

extension WorkbenchError: RunStoppingError {
    /// A full or read-only output disk stops the run.
    public var stopsRun: Bool {
        if case .outputStopped = self { return true }
        return false
    }
}
