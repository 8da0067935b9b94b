import ArgumentParser
import Foundation
import WorkbenchCore
import WorkbenchReports
import WorkbenchVips

/// `workbench explain`: the plan a preset runs as — what each node reads, what is decoded and
/// shrunk in one step, what is computed once for several readers — and, for a file, which way
/// its decode would go and why.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show the plan a preset runs as, and for a file, how it would be decoded.",
        discussion: """
            The plan is decided once per preset: several resizes of one image are made from one \
            another, largest first (each from the nearest size at least twice its own); a resize \
            reading a decode alone decodes and shrinks in one step; a result several nodes read is \
            computed once an item and kept. With FILE, also what its decode would do: the format and \
            size from its header, the JPEG scale the first resize would decode at, and why a faster \
            path is declined.
            """)

    @Argument(help: "The preset file.")
    var preset: String

    @Argument(help: "An input file: say how its decode would go.")
    var file: String?

    @Flag(help: "Print the plan as JSON.")
    var json = false

    @OptionGroup var overriding: OverrideOptions

    @OptionGroup var plugins: PluginOptions

    func run() throws {
        let loader = PresetLoader(registry: BuiltinOps.registry(plugins: plugins.catalogue()))
        let loaded: Preset
        do {
            loaded = try loader.load(file: preset, overrides: overriding.overrides)
        } catch {
            Terminal.error("\(error)")
            throw ExitCode(ExitStatus.badPreset)
        }
        var fileLines: [String] = []
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                Terminal.error("Cannot read \"\(file)\": no such file, or it is not readable. Give an input file of the preset.")
                throw ExitCode(ExitStatus.badPreset)
            }
            fileLines = DecodeExplanation.lines(for: Bytes(data, origin: file), in: loaded)
        }
        let explanation = PlanExplanation(loaded)
        if json {
            let data = try JSONSerialization.data(withJSONObject: explanation.jsonObject(file: fileLines), options: [.prettyPrinted, .sortedKeys])
            Terminal.out(String(decoding: data, as: UTF8.self))
            return
        }
        for line in explanation.lines { Terminal.out(line) }
        if !fileLines.isEmpty {
            Terminal.out("\((file! as NSString).lastPathComponent):")
            for line in fileLines { Terminal.out("  " + line) }
        }
    }
}
