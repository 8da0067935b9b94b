import ArgumentParser
import WorkbenchCore
import WorkbenchPlugins

/// `workbench plugin list`: every plugin found, its filters, and whether it can be used.
struct PluginListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every plugin found on the plugin path, its filters, and ok or refused with why.",
        discussion: "Each usable plugin's library is loaded in a helper process to check it, as a run would.")

    @OptionGroup var plugins: PluginOptions

    func run() throws {
        let catalogue = plugins.catalogue()
        defer { catalogue.shutdown() }
        Terminal.out("Plugin folders searched: " + catalogue.searchPath.folders.joined(separator: ", "))
        Terminal.out("Sandbox: " + (Sandbox.isEnabled ? Sandbox.support.summary : "off (WORKBENCH_PLUGIN_SANDBOX=off): isolated plugins run unconfined"))
        if catalogue.entries.isEmpty { Terminal.out("No plugins found (make one: workbench plugin new NAME).") }
        for entry in catalogue.entries {
            var status = entry.refusal.map { "refused: \($0)" } ?? "ok"
            if entry.refusal == nil, let manifest = entry.manifest {
                do {
                    try catalogue.prepare(ops: manifest.filters.filter { $0.graph == nil }.prefix(1).map { ("\(manifest.name).\($0.name)", false) })
                } catch {
                    if case .refused(_, _, let reason) = error { status = "refused: \(reason)" } else { status = "refused: \(error)" }
                }
            }
            let version = entry.manifest.map { " \($0.version)" } ?? ""
            Terminal.out("\(entry.name)\(version)  \(entry.folder)  \(status)")
            for filter in entry.manifest?.filters ?? [] {
                let parameters = filter.parameters.map(\.name).joined(separator: ", ")
                Terminal.out("  \(entry.name).\(filter.name)(\(parameters)) — \(filter.summary)")
            }
        }
    }
}
