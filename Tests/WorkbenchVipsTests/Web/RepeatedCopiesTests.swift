import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchVips

/// A srcset's widths wider than a photo: the copy that comes out the same as a smaller copy is
/// not encoded or written (Eleventy's rule), the manifest and the report say so, the markup
/// lists what was made, and an unchanged rerun still leaves the whole item alone.
@Suite struct RepeatedCopiesTests {
    static func preset(repeats: String? = nil) -> String {
        """
        {"version": 1, "graph": [{"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
          {"id": "resized", "op": "thumbnail", "width": "{w}", "foreach": {"w": [200, 400, 800]}\(repeats.map { ", \"repeats\": \"\($0)\"" } ?? "")},
          {"id": "encoded", "op": "encode", "format": "{fmt}", "foreach": {"fmt": ["webp", "jpeg"]}},
          {"id": "save", "op": "write", "path": "{name}-{w}.{fmt}"},
          {"id": "page", "op": "picture", "files": "@save[*]"},
          {"id": "page-save", "op": "write", "path": "{name}.html"}]}
        """
    }

    /// Bridge at 1600 px, and a copy of it 300 px wide made by a run of its own.
    static func inputs(_ harness: PresetHarness) async throws -> [String] {
        let bridge = try harness.sample("Bridge.jpg")
        let (made, _) = try await harness.run("""
            {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "thumbnail", "width": 300},
              {"op": "encode", "format": "jpeg", "Q": 90}, {"op": "write", "path": "Narrow.jpg"}]}
            """, inputs: [bridge], output: ".")
        #expect(made.succeeded == 1)
        return [bridge, harness.folder.appendingPathComponent("Narrow.jpg").path]
    }

    @Test func aCopyTheSameAsASmallerOneIsNotMadeAndARerunLeavesItSo() async throws {
        let harness = try PresetHarness("repeats")
        let inputs = try await Self.inputs(harness)
        let preset = try harness.load(Self.preset())
        let output = try OutputRoot(harness.folder.appendingPathComponent("out").path)
        for round in 0..<2 {
            let items = try InputExpansion.expand(inputs, relativeTo: harness.folder.path)
            let manifest = try RunManifest(preset: preset, output: output, versions: ["workbench": "test"])
            var options = RunOptions()
            options.eventDetail = .nodes
            let run = PresetRun.start(preset, items: .list(items), output: output, options: options, manifest: manifest)
            var reports: [String: ItemReport] = [:]
            var ran: [String] = []
            for await event in run.events {
                if case .itemFinished(let report) = event { reports[report.item.name] = report }
                if case .node(let node) = event, node.state == .running { ran.append("\(node.item.name) \(node.node)") }
            }
            let summary = await run.result
            let narrow = try #require(reports["Narrow"])
            #expect(narrow.notMade.map(\.path) == ["Narrow-800.webp", "Narrow-800.jpeg"], "round \(round)")
            #expect(narrow.notMade.allSatisfy { $0.notMade == "the same image as resized-400 (300×169, inside both boxes)" }, "\(narrow.notMade)")
            #expect(reports["Bridge"]?.notMade.isEmpty == true)
            if round == 0 {
                #expect(summary.succeeded == 2, "\(reports.values.map(\.failure))")
                // The 800 px copy of the narrow photo was still made (the 400 and 200 px are made
                // from it), but no encode of it ran; its writes record a file not made.
                #expect(ran.contains("Narrow resized-800"))
                #expect(!ran.contains { $0.hasPrefix("Narrow encoded-800") }, "\(ran)")
                #expect(ran.contains("Bridge encoded-800-webp"))
                #expect(narrow.files.map(\.path) == ["Narrow-200.webp", "Narrow-200.jpeg", "Narrow-400.webp", "Narrow-400.jpeg", "Narrow.html"])
            } else {
                // Unchanged: the copies not made count as up to date, so neither input is read.
                #expect(summary.upToDate == 2 && summary.bytesWritten == 0, "\(summary)")
                #expect(!ran.contains { $0.hasSuffix(" image") || $0.contains(" resized") }, "\(ran)")
            }
            #expect(!FileManager.default.fileExists(atPath: harness.output("Narrow-800.webp").path))
            #expect(!FileManager.default.fileExists(atPath: harness.output("Narrow-800.jpeg").path))
            let kept = try VipsImage.decode(Data(contentsOf: harness.output("Narrow-400.webp")), origin: "Narrow-400.webp")
            #expect(kept.width == 300)
            let bridge = try VipsImage.decode(Data(contentsOf: harness.output("Bridge-800.jpeg")), origin: "Bridge-800.jpeg")
            #expect(bridge.width == 800)
            let html = try String(contentsOf: harness.output("Narrow.html"), encoding: .utf8)
            #expect(html.contains("srcset=\"Narrow-200.webp 200w, Narrow-400.webp 300w\""), "\(html)")
            #expect(!html.contains("Narrow-800"))
            // The manifest on disk, its last record of the narrow photo.
            let lines = try String(contentsOf: harness.output("workbench-manifest.jsonl"), encoding: .utf8).split(separator: "\n")
            let records = lines.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["item"] as? [String: Any]
            }
            let record = try #require(records.last { ($0["input"] as? String)?.hasSuffix("Narrow.jpg") == true })
            let outputs = try #require(record["outputs"] as? [[String: Any]])
            #expect(outputs.filter { $0["notMade"] != nil }.compactMap { $0["path"] as? String }.sorted() == ["Narrow-800.jpeg", "Narrow-800.webp"])
        }
    }

    @Test func repeatsMakeMakesEveryCopy() async throws {
        let harness = try PresetHarness("repeats-make")
        let inputs = try await Self.inputs(harness)
        let (summary, reports) = try await harness.run(Self.preset(repeats: "make"), inputs: inputs)
        #expect(summary.succeeded == 2)
        #expect(reports.allSatisfy { $0.notMade.isEmpty })
        let repeated = try VipsImage.decode(Data(contentsOf: harness.output("Narrow-800.jpeg")), origin: "Narrow-800.jpeg")
        #expect(repeated.width == 300)
        let html = try String(contentsOf: harness.output("Narrow.html"), encoding: .utf8)
        // The markup still lists a width once.
        #expect(html.contains("srcset=\"Narrow-200.webp 200w, Narrow-400.webp 300w\""), "\(html)")
    }

    /// Only copies of one written node are compared: two nodes written apart are each made.
    @Test func thePlannerGivesEachCopyItsSmallerSiblings() throws {
        let harness = try PresetHarness("repeats-plan")
        let preset = try harness.load(Self.preset())
        let smaller = Dictionary(uniqueKeysWithValues: preset.nodes.map { ($0.id, $0.plan.smallerCopies.map(\.id)) })
        #expect(smaller["resized-200"] == [])
        #expect(smaller["resized-400"] == ["resized-200"])
        #expect(smaller["resized-800"] == ["resized-200", "resized-400"])
        let made = try harness.load(Self.preset(repeats: "make"))
        #expect(made.nodes.allSatisfy { $0.plan.smallerCopies.isEmpty })
        let apart = try harness.load("""
            {"version": 1, "graph": [{"id": "source", "op": "read"}, {"id": "image", "op": "decode"},
              {"id": "small", "op": "thumbnail", "width": 200, "from": "image"}, {"id": "large", "op": "thumbnail", "width": 800, "from": "image"},
              {"op": "encode", "format": "jpeg", "from": "small", "id": "e1"}, {"op": "write", "id": "w1", "path": "{name}-s.jpg"},
              {"op": "encode", "format": "jpeg", "from": "large", "id": "e2"}, {"op": "write", "id": "w2", "path": "{name}-l.jpg"}]}
            """)
        #expect(apart.nodes.allSatisfy { $0.plan.smallerCopies.isEmpty })
    }
}
