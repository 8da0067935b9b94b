import ArgumentParser
import Foundation

/// `workbench init [TEMPLATE]`: a starter preset in the current folder.
struct InitCommand: ParsableCommand {
    enum Template: String, ExpressibleByArgument, CaseIterable {
        case thumbnails, responsive, watermark, contactSheet = "contact-sheet"
    }

    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a starter preset into the current folder: thumbnails, responsive, watermark or contact-sheet.",
        discussion: """
            Examples:
              workbench init             (thumbnails.json: 400 px JPEGs in thumbnails/)
              workbench init responsive  (480, 960 and 1920 px wide, WebP and JPEG)
              workbench init contact-sheet && workbench run contact-sheet.json
            """)

    @Argument(help: "thumbnails (default), responsive, watermark or contact-sheet.")
    var template: Template = .thumbnails

    func run() throws {
        let file = template.rawValue + ".json"
        guard !FileManager.default.fileExists(atPath: file) else {
            Terminal.error("\(file) already exists here; remove it or pick another folder.")
            throw ExitCode(ExitStatus.badPreset)
        }
        do {
            try Data(Self.text(template).utf8).write(to: URL(fileURLWithPath: file))
        } catch {
            Terminal.error("Cannot write \(file): \(error.localizedDescription)")
            throw ExitCode(ExitStatus.badPreset)
        }
        let logoMissing = template == .watermark && !FileManager.default.fileExists(atPath: "logo.png")
        Terminal.out("Wrote \(file). It reads every JPEG in this folder (*.jpg, *.jpeg, any case)" + (template == .watermark ? " and lays logo.png on each" : "")
                     + (logoMissing ? ". There is no logo.png here yet: put yours here first (until then validate and run say it is missing)" : "")
                     + "; try: workbench run \(file) --dry-run, then workbench run \(file)")
    }

    /// Every template's first two nodes: each photo read and decoded.
    private static let readAndDecode = """
            { "id": "source", "op": "read" },
            { "id": "image", "op": "decode" },

        """

    static func text(_ template: Template) -> String {
        let graph: String
        let description: String
        switch template {
        case .thumbnails:
            description = "Every JPEG in this folder as a 400 × 400 JPEG thumbnail, cropped to what draws the eye."
            graph = Self.readAndDecode + """
                    { "id": "thumb", "op": "thumbnail", "width": 400, "height": 400, "fit": "cover", "crop": "attention" },
                    { "id": "jpeg", "op": "encode", "format": "jpeg", "Q": 82 },
                    { "id": "save", "op": "write", "path": "{name}.jpg" }
                """
        case .responsive:
            description = "Every JPEG in this folder at 480, 960 and 1920 px wide, as WebP and JPEG, for srcset."
            graph = Self.readAndDecode + """
                    { "id": "resized", "op": "thumbnail", "width": "{w}", "foreach": { "w": [480, 960, 1920] } },
                    { "id": "encoded", "op": "encode", "format": "{fmt}", "Q": 80, "foreach": { "fmt": ["webp", "jpeg"] } },
                    { "id": "save", "op": "write", "path": "{name}-{w}.{fmt}" }
                """
        case .watermark:
            description = "Every JPEG in this folder fitted into 1600 × 1600 with logo.png (from this folder) in the corner, a fifth of the photo's width."
            graph = """
                    { "id": "logo-file", "op": "read", "scope": "run", "path": "logo.png" },
                    { "id": "logo", "op": "decode", "scope": "run", "from": "logo-file" },
                    { "id": "source", "op": "read" },
                    { "id": "image", "op": "decode" },
                    { "id": "fit", "op": "thumbnail", "width": 1600, "height": 1600 },
                    { "id": "marked", "op": "watermark", "overlay": "@logo", "gravity": "south-east", "margin": 24, "size": 0.2, "opacity": 0.8 },
                    { "id": "jpeg", "op": "encode", "format": "jpeg", "Q": 85 },
                    { "id": "save", "op": "write", "path": "{name}.jpg" }
                """
        case .contactSheet:
            description = "One contact sheet of every JPEG in this folder: 300 × 200 tiles, four across."
            graph = Self.readAndDecode + """
                    { "id": "tile", "op": "thumbnail", "width": 300, "height": 200, "fit": "cover", "crop": "attention" },
                    { "id": "sheet", "op": "vips.arrayjoin", "scope": "run", "in": "@tile[*]", "across": 4, "shim": 6,
                      "background": [255, 255, 255] },
                    { "id": "sheet-jpeg", "op": "encode", "scope": "run", "from": "sheet", "format": "jpeg", "Q": 88 },
                    { "id": "sheet-save", "op": "write", "scope": "run", "from": "sheet-jpeg", "path": "contact-sheet.jpg" }
                """
        }
        return """
            {
              "version": 1,
              "name": "\(template.rawValue)",
              "description": "\(description)",
              "inputs": { "glob": "*.{jpg,jpeg}" },
              "output": "\(template.rawValue)",
              "graph": [
            \(graph)
              ]
            }

            """
    }
}
