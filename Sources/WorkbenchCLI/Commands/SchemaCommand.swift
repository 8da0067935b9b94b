import ArgumentParser
import WorkbenchPlugins
import WorkbenchVips

/// `workbench schema`: the JSON Schema of presets for this build's ops.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema of presets (every op and its parameters), for editors.")

    @OptionGroup var plugins: PluginOptions

    func run() throws {
        // A module that did not load leaves its savers' options out of the schema: say so.
        defer { for failure in VipsOps.moduleFailures { Terminal.error("warning: \(failure)") } }
        Terminal.out(try PresetSchema(registry: BuiltinOps.registry(plugins: plugins.catalogue())).json())
    }
}
