import ArgumentParser
import WorkbenchCore
import WorkbenchPlugins

/// `workbench validate`: checks presets without touching any input.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check presets and report every problem, without running them.")

    @Argument(help: "Preset files to check.")
    var presets: [String]

    @OptionGroup var plugins: PluginOptions

    func run() throws {
        let loader = PresetLoader(registry: BuiltinOps.registry(plugins: plugins.catalogue()))
        var failed = false
        for path in presets {
            do {
                let preset = try loader.load(file: path)
                for warning in preset.warnings { Terminal.error(warning.description) }
                // A long graph is shown by its ends.
                let names = preset.nodes.map { "\($0.id) (\($0.op.name))" }
                let chain = names.count <= 16 ? names.joined(separator: " → ")
                    : (names.prefix(8) + ["… \(names.count - 12) more …"] + names.suffix(4)).joined(separator: " → ")
                Terminal.out("\(path): ok — \(preset.nodes.count) nodes: \(chain)")
            } catch {
                failed = true
                Terminal.error(error.description)
            }
        }
        if failed { throw ExitCode(ExitStatus.badPreset) }
    }
}
