import ArgumentParser
import WorkbenchCore
import WorkbenchPlugins
import WorkbenchVips

/// `workbench filters`: every op a preset can name, or one op's parameters.
struct FiltersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filters",
        abstract: "List every op (stages, filters, libvips operations) or show one op's parameters.",
        discussion: """
            Examples:
              workbench filters                 (every op, then what presets may not use)
              workbench filters thumbnail       (one op's parameters)
              workbench filters vips.gaussblur  (any libvips operation)
              workbench filters --json | jq '.filters[].name'
            """)

    @Argument(help: "An op name, e.g. vips.gaussblur; without it, every op is listed.")
    var name: String?

    @Flag(help: "Print JSON (stable: keys sorted, ops by name) for editors and schemas.")
    var json = false

    @Flag(help: "Print the built-in ops' reference as Markdown (docs/ops.md).")
    var markdown = false

    @OptionGroup var plugins: PluginOptions

    @Option(help: ArgumentHelp("Also the filters this preset defines (its \"filters\" section).", valueName: "file"))
    var preset: String?

    func run() throws {
        // A module that did not load leaves its formats out of what is listed: say so.
        defer { for failure in VipsOps.moduleFailures { Terminal.error("warning: \(failure)") } }
        var registry = BuiltinOps.registry(plugins: plugins.catalogue())
        if let preset {
            do {
                for spec in try PresetLoader(registry: registry).load(file: preset).filters {
                    registry.register(OpDefinition(spec) { _ in PresetFilterPlaceholder() })
                }
            } catch {
                Terminal.error(error.description)
                throw ExitCode(ExitStatus.badPreset)
            }
        }
        let catalogue = FilterCatalogue(registry: registry)
        guard let name else {
            if markdown { return Terminal.out(catalogue.markdown()) }
            Terminal.out(json ? try catalogue.json(registry.specs, includeUnavailable: true) : catalogue.listing())
            return
        }
        registry.bringInEverything()
        guard let spec = registry[name]?.spec ?? registry.specs.first(where: { $0.name == name }) else {
            if let reason = registry.unavailableReason(name) {
                Terminal.error("\"\(name)\" cannot be used in a preset: \(reason).")
            } else {
                let hint = DidYouMean.suggestion(for: name, among: registry.names)
                Terminal.error("No op is named \"\(name)\"" + (hint.map { "; did you mean \"\($0)\"?" } ?? "") + " (\"workbench filters\" lists them all).")
            }
            throw ExitCode(ExitStatus.badPreset)
        }
        Terminal.out(json ? try catalogue.json([spec], includeUnavailable: false) : catalogue.detail(spec))
    }
}

/// Stands for a preset's own filter in listings: presets expand such filters into their nodes,
/// so this stage never runs.
private struct PresetFilterPlaceholder: Stage {
    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        throw WorkbenchError.unexpectedInput(node: context.nodeID, expected: "a preset's filter expanded into its nodes")
    }
}
