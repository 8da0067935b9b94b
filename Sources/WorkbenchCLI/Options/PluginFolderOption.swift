import ArgumentParser
import Foundation
import WorkbenchPlugins

/// The plugin folder `plugin build` and `plugin install` put a plugin into (`--to`).
struct PluginFolderOption: ParsableArguments {
    @Option(help: ArgumentHelp("Install into this plugin folder instead of ~/.local/share/workbench/plugins.", valueName: "dir"))
    var to: String?

    /// The folder, absolute: `--to`, else the user's plugin folder.
    var root: String { URL(fileURLWithPath: to ?? PluginSearchPath.userFolder).standardizedFileURL.path }
}
