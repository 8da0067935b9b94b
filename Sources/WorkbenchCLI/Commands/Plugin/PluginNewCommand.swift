import ArgumentParser
import Foundation

/// `workbench plugin new NAME [--area]`: a plugin package that builds and passes its test first time.
struct PluginNewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Make a plugin package NAME/ with a working kernel, its plugin.json, a unit test and a README.",
        discussion: """
            Then: swift test --package-path NAME; workbench plugin build NAME — and use NAME.FILTER in a preset \
            (NAME in lower case). The package gets a copy of this workbench's plugin kit (Kit/), so it \
            builds offline and against exactly this workbench's plugin API.
            """)

    @Argument(help: "The plugin's Swift name, e.g. Glow (a letter, then letters and digits); its filters are named glow.<filter>.")
    var name: String

    @Flag(help: "An area kernel (reads pixels around each one: a blur) instead of a point kernel.")
    var area = false

    @Option(help: ArgumentHelp("The plugin kit to copy (default: the one beside this workbench's sources, or WORKBENCH_KIT).", valueName: "dir"))
    var kit: String?

    func validate() throws {
        guard let first = name.first, first.isLetter, first.isASCII, name.allSatisfy({ ($0.isLetter || $0.isNumber) && $0.isASCII }) else {
            throw ValidationError("A plugin's name is a letter then letters and digits (it names a Swift module), e.g. Glow.")
        }
    }

    func run() throws {
        let files = FileManager.default
        let folder = URL(fileURLWithPath: name, relativeTo: URL(fileURLWithPath: files.currentDirectoryPath)).standardizedFileURL
        guard !files.fileExists(atPath: folder.path) else {
            Terminal.error("\(folder.path) already exists; choose another name or remove it.")
            throw ExitCode(ExitStatus.badPreset)
        }
        guard let kitFolder = PluginKitLocation.find(given: kit) else {
            Terminal.error("The plugin kit was not found (looked beside this workbench's sources and in WORKBENCH_KIT); give it with --kit DIR (Plugins/Kit in the workbench's repository).")
            throw ExitCode(ExitStatus.badPreset)
        }
        let template = PluginTemplate(module: name, area: area)
        do {
            for file in template.files {
                let url = folder.appendingPathComponent(file.path)
                try files.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.text.utf8).write(to: url)
            }
            try PluginKitLocation.copy(kitFolder, to: folder.appendingPathComponent("Kit"))
        } catch {
            // Removing the half-made folder; the error that matters is the one reported below.
            try? files.removeItem(at: folder)
            Terminal.error("Cannot write \(folder.path): \(error.localizedDescription)")
            throw ExitCode(ExitStatus.badPreset)
        }
        Terminal.out("""
            Made \(name)/ with the \(area ? "area" : "point") filter \(template.plugin).\(template.filter). Next:
              swift test --package-path \(name)    # its unit test
              workbench plugin build \(name)       # build in release, install into \(PluginKitLocation.userPluginsDisplay)
              workbench filters \(template.plugin).\(template.filter)
            """)
    }
}
