import ArgumentParser
import WorkbenchKernels
import WorkbenchVips

/// Verbosity flags shared by the commands.
struct OutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print only failures and the summary.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Print every node's state changes to standard error.")
    var verbose = false

    func validate() throws {
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together.") }
    }
}
