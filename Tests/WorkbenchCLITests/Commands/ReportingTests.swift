import Foundation
import Testing
import WorkbenchTestSupport
import WorkbenchVips

/// What a run tells while and after it runs: reports, events, traces, graphs, dry runs, the live
/// display — each checked against what was really written.
@Suite struct ReportingTests {
    private func json(_ file: URL) throws -> Any { try JSONSerialization.jsonObject(with: Data(contentsOf: file)) }

    @Test func theReportAndTheEventsMatchWhatWasWritten() throws {
        let folder = try Fixtures.temporaryDirectory("report")
        let out = folder.appendingPathComponent("out"), report = folder.appendingPathComponent("report.json")
        let events = folder.appendingPathComponent("events.jsonl")
        let preset = Fixtures.presets.appendingPathComponent("watermark-sheet.json").path
        let run = try CLIProcess.run(["run", preset, "--out", out.path, "--report", report.path, "--events", events.path])
        #expect(run.status == 0, "\(run.stderr)")

        let document = try #require(try json(report) as? [String: Any])
        #expect(document["reportVersion"] as? Int == 1)
        let versions = try #require(document["versions"] as? [String: String])
        #expect(versions["workbench"] != nil && versions["libvips"]?.hasPrefix("8.") == true)
        #expect((document["preset"] as? [String: Any])?["hash"] as? String != nil)
        let summary = try #require(document["run"] as? [String: Any])
        #expect(summary["succeeded"] as? Int == Fixtures.samplePhotos.count)
        #expect((summary["cpuSeconds"] as? Double ?? 0) > 0 && (summary["peakRSSBytes"] as? Int ?? 0) > 1_000_000)
        let items = try #require(document["items"] as? [[String: Any]])
        #expect(items.count == Fixtures.samplePhotos.count)
        for item in items {
            #expect(item["status"] as? String == "succeeded")
            let outputs = try #require(item["outputs"] as? [[String: Any]])
            #expect(outputs.count == 1)
            for output in outputs {
                let file = out.appendingPathComponent(try #require(output["path"] as? String))
                let written = try Data(contentsOf: file)
                #expect(output["bytes"] as? Int == written.count)
                let image = try VipsImage.decode(written, origin: file.path)
                #expect(output["width"] as? Int == image.width && output["height"] as? Int == image.height)
                #expect(output["format"] as? String == "webp")
            }
        }
        let sheet = try #require((summary["runScope"] as? [[String: Any]])?.first { $0["node"] as? String == "sheet-save" })
        #expect((sheet["output"] as? [String: Any])?["format"] as? String == "jpeg")
        let ops = try #require(document["ops"] as? [[String: Any]])
        let encode = try #require(ops.first { $0["op"] as? String == "encode" })
        #expect(encode["count"] as? Int == Fixtures.samplePhotos.count + 1)
        let p50 = encode["p50Seconds"] as? Double ?? -1, p95 = encode["p95Seconds"] as? Double ?? -1, max = encode["maxSeconds"] as? Double ?? -1
        #expect(0 < p50 && p50 <= p95 && p95 <= max)

        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
        let parsed = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(parsed.first?["event"] as? String == "runStarted")
        #expect(parsed.last?["event"] as? String == "runFinished")
        #expect(parsed.count { $0["event"] as? String == "itemFinished" } == Fixtures.samplePhotos.count)
        let ended = parsed.filter { $0["event"] as? String == "node" && $0["state"] as? String == "succeeded" }
        #expect(!ended.isEmpty && ended.allSatisfy { $0["lane"] is String && ($0["end"] as? Double ?? -1) >= ($0["start"] as? Double ?? 0) })
    }

    @Test func theTraceHasASpanPerBodyAndLanesNeverOverlapThemselves() throws {
        let folder = try Fixtures.temporaryDirectory("trace")
        let trace = folder.appendingPathComponent("trace.json")
        let preset = Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path
        let run = try CLIProcess.run(["run", preset, "--out", folder.appendingPathComponent("out").path, "--trace", trace.path, "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        let document = try #require(try json(trace) as? [String: Any])
        let events = try #require(document["traceEvents"] as? [[String: Any]])
        let spans = events.filter { $0["ph"] as? String == "X" }
        // read, decode, thumbnail, sepia, encode, write for each photo.
        #expect(spans.count == 6 * Fixtures.samplePhotos.count)
        var byLane: [Int: [(Double, Double)]] = [:]
        for span in spans {
            let ts = try #require(span["ts"] as? Double), dur = try #require(span["dur"] as? Double)
            #expect(ts >= 0 && dur >= 0)
            #expect((span["args"] as? [String: Any])?["item"] is String)
            byLane[try #require(span["tid"] as? Int), default: []].append((ts, ts + dur))
        }
        for (lane, intervals) in byLane {
            let sorted = intervals.sorted { $0.0 < $1.0 }
            for (a, b) in zip(sorted, sorted.dropFirst()) { #expect(b.0 >= a.1 - 1, "lane \(lane) overlaps itself") }
        }
        let names = events.filter { $0["name"] as? String == "thread_name" }.compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(names.contains("cpu 0") && names.contains { $0.hasPrefix("io") })
        #expect(events.contains { $0["ph"] as? String == "C" && $0["name"] as? String == "ready nodes" })
    }

    @Test func graphsRenderWithGraphvizAndMermaidSyntax() throws {
        let preset = Fixtures.presets.appendingPathComponent("watermark-sheet.json").path
        let dot = try CLIProcess.run(["graph", preset])
        #expect(dot.status == 0)
        #expect(dot.stdout.contains("style=bold") && dot.stdout.contains("style=dashed") && dot.stdout.contains("cluster_run"))
        let render = Process(), input = Pipe(), output = Pipe()
        render.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        render.arguments = ["dot", "-Tsvg"]
        render.standardInput = input
        render.standardOutput = output
        try render.run()
        input.fileHandleForWriting.write(Data(dot.stdout.utf8))
        try input.fileHandleForWriting.close()
        let svg = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        render.waitUntilExit()
        #expect(render.terminationStatus == 0)
        #expect(svg.contains("<svg") && svg.contains("arrayjoin"))

        let mermaid = try CLIProcess.run(["graph", preset, "--format", "mermaid"])
        let lines = mermaid.lines
        #expect(lines.first == "flowchart TD")
        // The subset of Mermaid's flowchart grammar the renderer writes.
        let patterns = [#"^  n\d+\["[^"]*"\]$"#, #"^    n\d+\[\["[^"]*"\]\]$"#, #"^  subgraph \w+ \["[^"]*"\]$"#, #"^  end$"#,
                        #"^  n\d+ --> n\d+$"#, #"^  n\d+ -\. "[^"]*" \.-> n\d+$"#, #"^  n\d+ == "[^"]*" ==> n\d+$"#]
        for line in lines.dropFirst() {
            #expect(patterns.contains { line.range(of: $0, options: .regularExpression) != nil }, "not Mermaid: \(line)")
        }
        #expect(lines.contains { $0.contains("==>") } && lines.contains { $0.contains(".->") })

        let validate = try CLIProcess.run(["validate", preset])
        #expect(validate.stdout.contains("├─ webp") && validate.stdout.contains("(see above)"), "\(validate.stdout)")
    }

    @Test func aDryRunListsEveryOutputAndWritesNothing() throws {
        let folder = try Fixtures.temporaryDirectory("dry")
        let out = folder.appendingPathComponent("out")
        let preset = Fixtures.presets.appendingPathComponent("watermark-sheet.json").path
        let run = try CLIProcess.run(["run", preset, "--out", out.path, "--dry-run"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(run.stdout.contains("Bridge.webp") && run.stdout.contains("contact-sheet.jpg") && run.stdout.contains("no collisions"))
        // Every photo to the same name: collisions, exit 2, still nothing written.
        let clash = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "\(Fixtures.samples.path)/*.jpg" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "save", "op": "write", "path": "{ext}.jpg" } ] }
            """, in: folder)
        let collided = try CLIProcess.run(["run", clash, "--out", out.path, "--dry-run"])
        #expect(collided.status == 2)
        #expect(collided.stderr.contains("collision: jpg.jpg"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        // Both streams on one pipe: the listing, the summary, then the collisions it announced.
        let piped = try CLIProcess.run(["run", clash, "--out", out.path, "--dry-run"], launcher: ["/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1"])
        let lines = piped.stdout.split(separator: "\n").map(String.init)
        let summary = try #require(lines.firstIndex { $0.contains("collisions: add {ext}") }, "\(piped.stdout)")
        #expect(lines[..<summary].allSatisfy { !$0.hasPrefix("collision:") } && lines[(summary + 1)...].allSatisfy { $0.hasPrefix("collision:") },
                "\(piped.stdout)")
    }

    @Test func initWritesStarterPresetsThatRun() throws {
        let folder = try Fixtures.temporaryDirectory("init")
        for photo in Fixtures.samplePhotos { try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent(photo.lastPathComponent)) }
        try FileManager.default.copyItem(at: Fixtures.samples.appendingPathComponent("logo.png"), to: folder.appendingPathComponent("logo.png"))
        for template in ["thumbnails", "responsive", "watermark", "contact-sheet"] {
            #expect(try CLIProcess.run(["init", template], in: folder).status == 0)
        }
        #expect(try CLIProcess.run(["init"], in: folder).status == 2)  // thumbnails.json exists: not overwritten
        let validate = try CLIProcess.run(["validate", "thumbnails.json", "responsive.json", "watermark.json", "contact-sheet.json"], in: folder)
        #expect(validate.status == 0, "\(validate.stderr)")
        let run = try CLIProcess.run(["run", "contact-sheet.json", "-q"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("contact-sheet/contact-sheet.jpg").path))
    }

    /// A camera's folder: upper-case and four-letter extensions are JPEGs too.
    @Test func initReadsEveryJPEGACameraNames() throws {
        let folder = try Fixtures.temporaryDirectory("init-camera")
        let photo = try #require(Fixtures.samplePhotos.first { $0.pathExtension.lowercased() == "jpg" })
        for name in ["IMG_0001.JPG", "IMG_0002.jpeg", "IMG_0003.JPEG"] {
            try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent(name))
        }
        let written = try CLIProcess.run(["init"], in: folder)
        #expect(written.stdout.contains("every JPEG in this folder (*.jpg, *.jpeg, any case)"), "\(written.stdout)")
        let dryRun = try CLIProcess.run(["run", "thumbnails.json", "--dry-run"], in: folder)
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        for name in ["IMG_0001", "IMG_0002", "IMG_0003"] { #expect((dryRun.stdout + dryRun.stderr).contains(name)) }
    }

    @Test func eventsOnStandardOutputAreOnlyJSON() throws {
        let folder = try Fixtures.temporaryDirectory("events-stdout")
        let preset = Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path
        let run = try CLIProcess.run(["run", preset, "--out", folder.appendingPathComponent("out").path, "--events", "-"])
        #expect(run.status == 0)
        for line in run.lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)") }
        #expect(run.stderr.contains("6 items: 6 succeeded"))
    }

    @Test func theLiveDisplayCountsRatesAndEndsClean() throws {
        let folder = try Fixtures.temporaryDirectory("terminal")
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for copy in 0..<12 {
            for photo in Fixtures.samplePhotos {
                try FileManager.default.createSymbolicLink(at: photos.appendingPathComponent("\(copy)-\(photo.lastPathComponent)"), withDestinationURL: photo)
            }
        }
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "photos/*.jpg" },
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "blur", "op": "vips.gaussblur", "sigma": 3 }, { "id": "thumb", "op": "thumbnail", "width": 300 },
                         { "id": "jpeg", "op": "encode", "format": "jpeg" }, { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder)
        // A real terminal, 100 columns wide: the display is chosen by `auto`, as a user gets it.
        var during = ""
        let run = try PseudoTerminal.run(["run", preset, "--out", "out"], in: folder, columns: 100, rows: 20) { screen in
            let text = screen.text
            if text.contains("items/s") && text.contains("ETA") && text.contains("queues:") { during = text }
        }
        let after = run.screen.text
        #expect(run.status == 0, "\(after)")
        #expect(during.contains("/72 done"), "\(during)")
        #expect(during.contains("items/s") && during.contains("MB/s") && during.contains("ETA"), "\(during)")
        #expect(!run.screen.wrapped, "a line ran past the terminal's edge")
        #expect(after.contains("72 items: 72 succeeded"), "\(after)")
        #expect(!after.contains("queues:") && !after.contains("ETA"), "\(after)")
    }
}
