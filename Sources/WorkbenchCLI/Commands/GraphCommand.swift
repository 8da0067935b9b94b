import ArgumentParser
import WorkbenchCore
import WorkbenchPlugins
import WorkbenchReports

/// `workbench graph PRESET`: the preset's graph for Graphviz or Mermaid.
struct GraphCommand: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable { case dot, mermaid }

    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Print a preset's graph as Graphviz dot or Mermaid (queues, scopes, references and fan-ins drawn apart).",
        discussion: """
            Examples:
              workbench graph Presets/watermark-sheet.json | dot -Tsvg > graph.svg
              workbench graph Presets/watermark-sheet.json --format mermaid
                (paste it into a Markdown ```mermaid block)
            Solid arrows are "from" edges, dashed ones references ("@id"), bold ones fan-ins ("@id[*]", every item's \
            output into one run-scope node); run-scope nodes have a double border inside a "run scope" box.
            """)

    @Argument(help: "The preset file.")
    var preset: String

    @Option(help: "dot (Graphviz) or mermaid.")
    var format: Format = .dot

    @OptionGroup var overriding: OverrideOptions

    @OptionGroup var plugins: PluginOptions

    func run() throws {
        let loaded: Preset
        do {
            loaded = try PresetLoader(registry: BuiltinOps.registry(plugins: plugins.catalogue())).load(file: preset, overrides: overriding.overrides)
        } catch {
            Terminal.error(error.description)
            throw ExitCode(ExitStatus.badPreset)
        }
        let renderer = GraphRenderer(loaded)
        Terminal.out(format == .dot ? renderer.dot() : renderer.mermaid(), terminator: "")
    }
}
