import ArgumentParser
import Foundation

/// Where a run's files go and how many threads make them: `run` and `watch` alike.
struct WorkOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The output root, a folder or s3://bucket/prefix/; write paths are relative to it.", valueName: "dir"))
    var out: String?

    @Option(name: .long, help: ArgumentHelp("Threads for CPU stages (default: one per core).", valueName: "n"))
    var jobs: Int?

    func validate() throws {
        if let jobs, jobs < 1 || jobs > 256 { throw ValidationError("--jobs takes a number from 1 to 256.") }
    }

    /// Threads for CPU stages: `--jobs`, else one per core.
    var workers: Int { jobs ?? ProcessInfo.processInfo.activeProcessorCount }
}
