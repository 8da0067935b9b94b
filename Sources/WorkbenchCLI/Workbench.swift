import ArgumentParser
import Foundation
import WorkbenchCore
import WorkbenchKernels
import WorkbenchVips

/// The `workbench` command: runs image pipelines declared in JSON presets.
@main
struct Workbench: AsyncParsableCommand {

    static let configuration = CommandConfiguration(
        commandName: "workbench",
        abstract: "Run image pipelines declared in JSON presets.",
        discussion: """
            Exit status: 0 all items succeeded, 1 some items failed, 2 bad preset or usage, \
            130 interrupted.
            """,
        version: "\(Release.version) (libvips \(VipsRuntime.version), plugin API \(Plugin.apiVersion), \(Toolchain.current))",
        subcommands: [RunCommand.self, WatchCommand.self, ValidateCommand.self, GraphCommand.self, ExplainCommand.self, InitCommand.self, FiltersCommand.self, SchemaCommand.self, PluginCommand.self, ManifestCommand.self, ServeCommand.self,
                      PluginHelperCommand.self])

    /// Like ArgumentParser's `main`, but usage errors exit with 2 as documented, not 64.
    static func main() async {
        // Before any thread exists, so glibc's malloc limits apply to every thread.
        VipsRuntime.tuneMemory()
        do {
            var command = try parseAsRoot()
            let workers = (command as? RunCommand)?.work.workers ?? ProcessInfo.processInfo.activeProcessorCount
            if command is RunCommand || command is ServeCommand, let refusal = ProcessLimits.refusalToRun(workers: workers, beforeLoading: true) {
                Terminal.error(refusal)
                Foundation.exit(ExitStatus.badPreset)
            }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Foundation.exit(0)
            }
            if !message.isEmpty { Terminal.error(message) }
            Foundation.exit(code == .validationFailure ? ExitStatus.badPreset : code.rawValue)
        }
    }
}
