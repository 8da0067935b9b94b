import ArgumentParser
import WorkbenchCore
import WorkbenchPlugins
import WorkbenchReports

/// `workbench validate`: checks presets without touching any input.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check presets and report every problem, without running them.")

    @Argument(help: "Preset files to check.")
    var presets: [String]

    @OptionGroup var overriding: OverrideOptions

    @OptionGroup var plugins: PluginOptions

    func run() throws {
        let loader = PresetLoader(registry: BuiltinOps.registry(plugins: plugins.catalogue()))
        var failed = false
        for path in presets {
            do {
                let preset = try loader.load(file: path, overrides: overriding.overrides)
                for warning in preset.warnings { Terminal.error(warning.description) }
                Terminal.out("\(path): ok — \(preset.nodes.count) nodes")
                // Branches as a tree; a long graph by its first lines.
                let tree = GraphRenderer(preset).tree(maxLines: 40)
                for line in tree.lines { Terminal.out(line) }
                if tree.total > tree.lines.count {
                    Terminal.out("  … \(tree.total - tree.lines.count) more lines (workbench graph draws it all)")
                }
            } catch {
                failed = true
                Terminal.error(error.description)
            }
        }
        if failed { throw ExitCode(ExitStatus.badPreset) }
    }
}
