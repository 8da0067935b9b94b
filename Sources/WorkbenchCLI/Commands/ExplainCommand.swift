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
        var undecodable = false
        if let file {
            var folder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &folder), !folder.boolValue,
                  let data = FileManager.default.contents(atPath: file) else {
                let why = folder.boolValue ? "it is a folder" : "no such file, or it is not readable"
                Terminal.error("Cannot read \"\(file)\": \(why). Give one input file of the preset.")
                throw ExitCode(ExitStatus.badPreset)
            }
            let explained = DecodeExplanation.explain(Bytes(data, origin: file), in: loaded)
            fileLines = explained.lines
            undecodable = !explained.decodable
        }
        let explanation = PlanExplanation(loaded)
        if json {
            let data = try JSONSerialization.data(withJSONObject: explanation.jsonObject(file: fileLines), options: [.prettyPrinted, .sortedKeys])
            Terminal.out(String(decoding: data, as: UTF8.self))
            if undecodable { throw ExitCode(1) }
            return
        }
        for line in explanation.lines { Terminal.out(line) }
        if let file, !fileLines.isEmpty {
            Terminal.out("\((file as NSString).lastPathComponent):")
            for line in fileLines { Terminal.out("  " + line) }
        }
        // Its item would fail: say so in the status too.
        if undecodable { throw ExitCode(1) }
    }
}
