import Foundation
import Testing
import WorkbenchTestSupport

/// `workbench explain PRESET FILE` says what the run does, from the same decisions: for every
/// sample preset with local inputs, two starter presets and edge files (a photo, a strip nine
/// pixels tall, a transparent PNG, an empty file), the scale explain names is the scale the
/// run's report records for the decode, the size it names is the size written, and a file it
/// says cannot be decoded fails with the same words.
@Suite struct ExplainAgreementTests {
    /// The presets: the bundled ones that read local files, and `init`'s thumbnails (cover and
    /// attention crop) with a contain twin.
    static func presets(in folder: URL) throws -> [String] {
        var presets: [String] = []
        for name in ["sepia-thumbnails", "responsive-images", "film-look", "watermark-sheet"] {
            let copy = folder.appendingPathComponent("\(name).json")
            try FileManager.default.copyItem(at: Fixtures.presets.appendingPathComponent("\(name).json"), to: copy)
            presets.append(copy.path)
        }
        try FileManager.default.copyItem(at: Fixtures.presets.appendingPathComponent("samples"), to: folder.appendingPathComponent("samples"))
        let made = try CLIProcess.run(["init", "thumbnails"], in: folder)
        #expect(made.status == 0, "\(made.stderr)")
        let thumbnails = folder.appendingPathComponent("thumbnails.json")
        let contain = folder.appendingPathComponent("contain.json")
        try String(contentsOf: thumbnails, encoding: .utf8)
            .replacingOccurrences(of: "\"fit\": \"cover\", \"crop\": \"attention\"", with: "\"fit\": \"contain\"")
            .write(to: contain, atomically: true, encoding: .utf8)
        return presets + [thumbnails.path, contain.path]
    }

    static func files(in folder: URL) throws -> [URL] {
        let photo = folder.appendingPathComponent("photo.jpg")
        try FileManager.default.copyItem(at: Fixtures.samplePhotos[0], to: photo)
        let strip = folder.appendingPathComponent("strip.jpg")
        _ = try Fixtures.vips(["thumbnail", Fixtures.samplePhotos[0].path, strip.path + "[interlace]", "1000", "--height", "9", "--size", "force"])
        let transparent = folder.appendingPathComponent("cutout.png")
        _ = try Fixtures.vips(["black", folder.appendingPathComponent("b.v").path, "1200", "800", "--bands", "4"])
        _ = try Fixtures.vips(["linear", folder.appendingPathComponent("b.v").path, transparent.path, "1", "128"])
        let empty = folder.appendingPathComponent("empty.jpg")
        try Data().write(to: empty)
        return [photo, strip, transparent, empty]
    }

    /// Explain's lines for the file: "node: words" after the file's own header line.
    static func fileLines(_ text: String, file: URL) -> [String] {
        let lines = text.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(of: file.lastPathComponent + ":") else { return [] }
        return lines[(start + 1)...].map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The "1/N" a line names, 1 for "at full size", nil when it names no JPEG scale.
    static func scale(in line: String) -> Int? {
        if line.contains("JPEG at full size") || line.contains("libjpeg at 1/1 ") { return 1 }
        guard let range = line.range(of: #"at 1/(\d)"#, options: .regularExpression) else { return nil }
        return Int(line[range].dropFirst("at 1/".count))
    }

    @Test func explainSaysWhatTheRunDoes() throws {
        let folder = try Fixtures.temporaryDirectory("explain-agrees")
        let presets = try Self.presets(in: folder)
        let files = try Self.files(in: folder)
        var compared = 0
        for preset in presets {
            for file in files {
                let label = "\((preset as NSString).lastPathComponent) on \(file.lastPathComponent)"
                let explained = try CLIProcess.run(["explain", preset, file.path])
                let lines = Self.fileLines(explained.stdout, file: file)
                #expect(!lines.isEmpty, "\(label): \(explained.stdout) \(explained.stderr)")
                let report = folder.appendingPathComponent("report.json")
                let run = try CLIProcess.run(["run", preset, file.path, "--out", folder.appendingPathComponent("out-\(compared)").path,
                                              "--report", report.path, "-q"])
                let object = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any] ?? [:]
                let item = try #require((object["items"] as? [[String: Any]])?.first, "\(label): \(run.stderr)")
                let decodes = item["decodes"] as? [String] ?? []
                if let refusal = lines.first(where: { $0.hasPrefix("cannot be decoded") }) {
                    let message = (item["error"] as? [String: Any])?["message"] as? String ?? ""
                    let reason = String(refusal.drop { $0 != ":" }.dropFirst(2))
                    #expect(item["status"] as? String == "failed" && message.contains(reason), "\(label): explain says \(refusal); the run: \(message)")
                    compared += 1
                    continue
                }
                #expect(item["status"] as? String == "succeeded", "\(label): \(item)")
                for line in lines.dropFirst() where line.contains(": ") {
                    let said = Self.scale(in: line)
                    let done = decodes.compactMap(Self.scale)
                    if line.contains("decoded whole") {
                        #expect(decodes.contains { $0.contains("loading the whole image") }, "\(label): explain: \(line); run: \(decodes)")
                    } else if let said, said > 1 {
                        #expect(done.contains(said), "\(label): explain: \(line); run: \(decodes)")
                    } else if said == 1 {
                        #expect(done.allSatisfy { $0 == 1 }, "\(label): explain: \(line); run: \(decodes)")
                    }
                    // The size explain gives is one the run wrote (thumbnail presets: the written file is the resize).
                    if preset.hasSuffix("thumbnails.json") || preset.hasSuffix("contain.json"),
                       let range = line.range(of: #"to (\d+)×(\d+)"#, options: .regularExpression) {
                        let size = line[range].dropFirst(3).split(separator: "×").compactMap { Int($0) }
                        let outputs = (item["outputs"] as? [[String: Any]] ?? []).map { [$0["width"] as? Int ?? 0, $0["height"] as? Int ?? 0] }
                        #expect(outputs.contains(size), "\(label): explain: \(line); written: \(outputs)")
                    }
                    compared += 1
                }
            }
        }
        #expect(compared >= presets.count * files.count)
    }
}
