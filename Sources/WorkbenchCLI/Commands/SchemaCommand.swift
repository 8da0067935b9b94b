import ArgumentParser
import WorkbenchPlugins

/// `workbench schema`: the JSON Schema of presets for this build's ops.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of presets (every op and its parameters), for editors.")

    @OptionGroup var plugins: PluginOptions

    func run() throws {
        Terminal.out(try PresetSchema(registry: BuiltinOps.registry(plugins: plugins.catalogue())).json())
    }
}
