import ArgumentParser
import WorkbenchCore

/// `--set NODE.PARAM=VALUE`, repeatable: node parameters changed for this command only.
struct OverrideOptions: ParsableArguments {
    @Option(name: .customLong("set"), help: ArgumentHelp(
        "Change a node's parameter for this run, checked like the file: e.g. --set thumb.width=800 --set jpeg.Q=90 (repeatable).",
        valueName: "node.param=value"))
    var set: [String] = []

    func validate() throws {
        for text in set where PresetOverride(text) == nil {
            throw ValidationError("--set takes NODE.PARAM=VALUE (e.g. thumb.width=800); \"\(text)\" is not that.")
        }
    }

    var overrides: [PresetOverride] { self.set.compactMap(PresetOverride.init) }
}
