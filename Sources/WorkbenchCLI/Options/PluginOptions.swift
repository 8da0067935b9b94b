import ArgumentParser
import WorkbenchCore
import WorkbenchPlugins

/// Where plugins are found and which run in process: shared by every command that reads presets.
struct PluginOptions: ParsableArguments {
    @Option(name: .customLong("plugin-path"), help: ArgumentHelp(
        "A folder of plugins, searched before WORKBENCH_PLUGIN_PATH and ~/.local/share/workbench/plugins (repeatable).", valueName: "dir"))
    var pluginPath: [String] = []

    @Option(name: .customLong("trust-plugin"), help: ArgumentHelp(
        "Run this plugin's kernels in the workbench's own process: full speed, but a crash in it ends the run (repeatable).", valueName: "name"))
    var trustPlugin: [String] = []

    @Option(name: .customLong("plugin-timeout"), help: ArgumentHelp(
        "Longest an isolated plugin kernel may work on one region before its helper is stopped and the item fails (default 60).", valueName: "seconds"))
    var pluginTimeout: Double = 60

    func validate() throws {
        if !(pluginTimeout > 0 && pluginTimeout <= 86_400) { throw ValidationError("--plugin-timeout takes seconds from above 0 to 86400.") }
    }

    func catalogue() -> PluginCatalogue {
        PluginCatalogue(searchPath: .standard(commandLine: pluginPath), trusted: Set(trustPlugin),
                        limits: HelperPool.Limits(regionSeconds: pluginTimeout, output: { Terminal.error($0) }))
    }
}
