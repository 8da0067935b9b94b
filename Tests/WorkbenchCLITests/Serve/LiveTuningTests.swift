import Foundation
import Testing
import WorkbenchTestSupport

/// Tuning a preset by hand in the live workbench, over real HTTP: controls made from the op
/// declarations, values checked by the validator, previews of unsaved values, and saving them
/// into the file byte for byte.
@Suite(.serialized) struct LiveTuningTests {
    /// A folder with the sample photos and a sepia preset; returns it and the preset's path.
    private func project(_ label: String) throws -> (URL, String) {
        let folder = try Fixtures.temporaryDirectory(label)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for photo in Fixtures.samplePhotos { try FileManager.default.copyItem(at: photo, to: photos.appendingPathComponent(photo.lastPathComponent)) }
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "photos/*.jpg" }, "output": "out",
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "small", "op": "thumbnail", "width": 400 },
                         { "id": "tone",  "op": "sepia",   "intensity": 0.2 },
                         { "id": "jpeg", "op": "encode", "format": "jpeg", "Q": 85 },
                         { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder)
        return (folder, preset)
    }

    private func json(_ response: RawHTTP.Response) throws -> Any {
        try JSONSerialization.jsonObject(with: response.body)
    }

    private func change(_ server: LiveServerProcess, _ node: String, _ key: String, _ value: String) throws -> RawHTTP.Response {
        let body = try JSONSerialization.data(withJSONObject: ["node": node, "key": key, "value": value])
        return try server.request("/parameter", method: "POST", body: String(decoding: body, as: UTF8.self))
    }

    private func draft(_ server: LiveServerProcess) throws -> [String: Int] {
        (try json(server.request("/draft")) as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
    }

    @Test func controlsComeFromTheDeclarationsAndOnlyValidValuesAreTaken() throws {
        let (_, preset) = try project("tune-controls")
        let server = try LiveServerProcess([preset])
        defer { _ = server.stop() }
        let panels = try json(server.request("/controls")) as? [[String: Any]] ?? []
        // Filters and the encoder; nothing that reads or writes files.
        #expect(panels.map { $0["node"] as? String ?? "" } == ["small", "tone", "jpeg"], "\(panels)")
        let tone = (panels.first { $0["node"] as? String == "tone" }?["controls"] as? [[String: Any]] ?? [])
        let intensity = try #require(tone.first { $0["name"] as? String == "intensity" })
        #expect(intensity["type"] as? String == "number" && intensity["min"] as? Double == 0 && intensity["max"] as? Double == 1)
        #expect(intensity["value"] as? Double == 0.2)
        let jpeg = (panels.first { $0["node"] as? String == "jpeg" }?["controls"] as? [[String: Any]] ?? [])
        #expect(jpeg.first { $0["name"] as? String == "format" }?["type"] as? String == "choice")

        // Refused with the validator's own words; nothing kept.
        let tooMuch = try change(server, "tone", "intensity", "1.5")
        #expect(tooMuch.status == 422 && tooMuch.text.contains("expected a number 0…1, found 1.5"), "\(tooMuch.text)")
        let path = try change(server, "save", "path", "\"/etc/passwd\"")
        #expect(path.status == 422 && path.text.contains("has no parameter \"path\" the page can set"), "\(path.text)")
        let notJSON = try change(server, "tone", "intensity", "{")
        #expect(notJSON.status == 400)
        #expect(try draft(server)["changes"] == 0)

        let fine = try change(server, "tone", "intensity", "0.9")
        #expect(fine.status == 204, "\(fine.text)")
        let after = try json(server.request("/controls")) as? [[String: Any]] ?? []
        let changed = (after.first { $0["node"] as? String == "tone" }?["controls"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "intensity" }
        #expect(changed?["value"] as? Double == 0.9 && changed?["changed"] as? Bool == true)
    }

    @Test func previewsOfUnsavedValuesLeaveTheOutputsAloneAndABurstRunsItsLast() throws {
        let (folder, preset) = try project("tune-preview")
        let server = try LiveServerProcess([preset])
        defer { _ = server.stop() }
        let visible = Array(0..<Fixtures.samplePhotos.count)
        _ = try server.request("/viewport", method: "POST", body: "{\"visible\": \(visible)}")
        try server.wait { server.states($0).allSatisfy { $0 == "done" } }
        let out = folder.appendingPathComponent("out")
        let before = IncrementalRunTests.stamps(out)

        // Twenty changes as fast as they come: the first may run, the others are replaced by the last.
        for step in 1...20 { _ = try change(server, "tone", "intensity", String(Double(step) / 20)) }
        let deadline = Date().addingTimeInterval(600)
        var counts = try draft(server)
        while Date() < deadline {
            counts = try draft(server)
            let ready = visible.allSatisfy { (try? server.request("/preview/draft/\($0)").status) == 200 }
            if ready && counts["previewRuns"] ?? 0 >= 1 { break }
            usleep(100_000)
        }
        #expect((1...2).contains(counts["previewRuns"] ?? 0), "\(counts)")
        #expect(counts["changes"] == 1)
        // The previews are small images of the newest value; the output folder did not change.
        let preview = try server.request("/preview/draft/0")
        #expect(preview.status == 200 && preview.body.prefix(2) == Data([0xFF, 0xD8]))
        #expect(IncrementalRunTests.stamps(out) == before)
        #expect(try String(contentsOfFile: preset, encoding: .utf8).contains("\"intensity\": 0.2"))
    }

    @Test func aChangeRunsFromTheFirstNodeItChangesOnKeptResults() throws {
        let (_, preset) = try project("tune-kept")
        let server = try LiveServerProcess([preset])
        defer { _ = server.stop() }
        let visible = Array(0..<Fixtures.samplePhotos.count)
        _ = try server.request("/viewport", method: "POST", body: "{\"visible\": \(visible)}")
        try server.wait { server.states($0).allSatisfy { $0 == "done" } }
        /// Changes a value, waits for the previews of that generation, returns the bodies run.
        func preview(_ node: String, _ key: String, _ value: String) throws -> Int {
            #expect(try change(server, node, key, value).status == 204)
            let deadline = Date().addingTimeInterval(600)
            while Date() < deadline {
                let counts = try draft(server)
                if counts["previewFinished"] == counts["generation"] { return counts["previewNodesRun"] ?? -1 }
                usleep(50_000)
            }
            return -1
        }
        let n = visible.count
        // read, decode, thumbnail, sepia, encode, write for every card.
        #expect(try preview("tone", "intensity", "0.5") == 6 * n)
        // The encoder changed: the kept sepia images are encoded again; nothing above runs.
        #expect(try preview("jpeg", "Q", "60") == 2 * n)
        // Sepia changed: from the kept thumbnails.
        #expect(try preview("tone", "intensity", "0.7") == 3 * n)
        // Back to a value seen before with this encoder: its JPEG bytes are kept; only the writes run.
        #expect(try preview("tone", "intensity", "0.5") == n)
    }

    @Test func saveWritesOnlyTheChangedBytesKeepsEditorChangesAndRevertForgets() throws {
        let (folder, preset) = try project("tune-save")
        // --verbose: the server says when it has read the edited file again (see below).
        let server = try LiveServerProcess([preset, "--verbose"])
        defer { _ = server.stop() }
        let original = try String(contentsOfFile: preset, encoding: .utf8)

        // Revert forgets a change.
        #expect(try change(server, "tone", "intensity", "0.7").status == 204)
        _ = try server.request("/revert", method: "POST")
        #expect(try draft(server)["changes"] == 0)
        #expect(try String(contentsOfFile: preset, encoding: .utf8) == original)

        // A change on the page, then one in the editor meanwhile: saving keeps both.
        #expect(try change(server, "tone", "intensity", "0.75").status == 204)
        let edited = original.replacingOccurrences(of: "\"Q\": 85", with: "\"Q\": 80")
        let readBefore = server.process.stderrSoFar.components(separatedBy: "read again").count
        try edited.write(toFile: preset, atomically: true, encoding: .utf8)
        // Saved only once the server has read the edit (it merges the page's changes into it).
        try server.wait { _ in server.process.stderrSoFar.components(separatedBy: "read again").count > readBefore }
        let saved = try server.request("/save", method: "POST")
        #expect(saved.status == 204, "\(saved.text)")
        let text = try String(contentsOfFile: preset, encoding: .utf8)
        #expect(text == edited.replacingOccurrences(of: "\"intensity\": 0.2", with: "\"intensity\": 0.75"), "\(text)")
        #expect(try draft(server)["changes"] == 0)

        // The saved preset is read again and its full-size files made.
        _ = try server.request("/viewport", method: "POST", body: "{\"visible\": [0]}")
        try server.wait { server.states($0).first == "done" }
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/\(Fixtures.samplePhotos[0].deletingPathExtension().lastPathComponent).jpg").path))
    }

    @Test func draggingASliderInTheBrowserPreviewsTheLookAndSaveKeepsIt() throws {
        let (folder, preset) = try project("tune-browser")
        let original = try String(contentsOfFile: preset, encoding: .utf8)
        let server = try LiveServerProcess([preset])
        defer { _ = server.stop() }
        let shot = folder.appendingPathComponent("tuning.png")
        let browser = Process(), output = Pipe(), errors = Pipe()
        // Debian's own Python, which sees Debian's python3-selenium.
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        browser.arguments = [Fixtures.packageRoot.appendingPathComponent("Tests/Support/tuning_browser_test.py").path, server.url, shot.path]
        browser.standardOutput = output
        browser.standardError = errors
        try browser.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        #expect(browser.terminationStatus == 0, "\(complaint)")
        let seen = try JSONSerialization.jsonObject(with: printed) as? [String: Any] ?? [:]
        // Sepia intensity up: the preview is warmer than the saved output (R − B grows).
        let before = seen["rMinusBBefore"] as? Double ?? 0, after = seen["rMinusBAfter"] as? Double ?? 0
        #expect(seen["previewShown"] as? Bool == true && after > before + 20, "\(seen)")
        #expect(seen["saveLabel"] as? String == "Save (1)" && seen["saved"] as? Bool == true, "\(seen)")
        // Saved: exactly the dragged value's bytes changed.
        let text = try String(contentsOfFile: preset, encoding: .utf8)
        #expect(text == original.replacingOccurrences(of: "\"intensity\": 0.2", with: "\"intensity\": 1"), "\(text)")
        #expect((try? Data(contentsOf: shot))?.count ?? 0 > 20_000)
    }

    /// The browser test's result for `preset` (and a field typed into, `NODE:KEY:VALUE`).
    private func tuneInBrowser(_ server: LiveServerProcess, screenshot: URL, field: String? = nil) throws -> [String: Any] {
        let browser = Process(), output = Pipe(), errors = Pipe()
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        browser.arguments = [Fixtures.packageRoot.appendingPathComponent("Tests/Support/tuning_browser_test.py").path, server.url, screenshot.path]
            + (field.map { [$0] } ?? [])
        browser.standardOutput = output
        browser.standardError = errors
        try browser.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        #expect(browser.terminationStatus == 0, "\(complaint)")
        return try JSONSerialization.jsonObject(with: printed) as? [String: Any] ?? [:]
    }

    /// What `init responsive` makes: one written thumbnail repeated over widths, everything
    /// after it repeated with it.
    @Test func aForeachPresetIsTunedInTheBrowserAndSaveChangesTheRightBytes() throws {
        let (folder, preset) = try project("tune-foreach")
        let original = try String(contentsOfFile: preset, encoding: .utf8)
            .replacingOccurrences(of: #""width": 400 }"#, with: #""width": "{w}", "foreach": { "w": [300, 400] } }"#)
            .replacingOccurrences(of: #""{name}.jpg""#, with: #""{name}-{w}.jpg""#)
        try original.write(toFile: preset, atomically: true, encoding: .utf8)
        let server = try LiveServerProcess([preset])
        defer { _ = server.stop() }

        // One panel per written node; the width, written as {w}, has a control per copy.
        let panels = try json(server.request("/controls")) as? [[String: Any]] ?? []
        #expect(panels.map { $0["node"] as? String ?? "" } == ["small", "tone", "jpeg"], "\(panels)")
        #expect(panels.first?["copies"] as? [String] == ["small-300", "small-400"])
        let widths = (panels.first?["controls"] as? [[String: Any]] ?? []).filter { $0["name"] as? String == "width" }
        #expect(widths.map { $0["node"] as? String ?? "" } == ["small-300", "small-400"] && widths.map { $0["copy"] as? String ?? "" } == ["w = 300", "w = 400"])
        let same = try change(server, "tone-300", "intensity", "0.5")
        #expect(same.status == 422 && same.text.contains("is a copy of \"tone\""), "\(same.text)")

        let seen = try tuneInBrowser(server, screenshot: folder.appendingPathComponent("tuning.png"), field: "small-300:width:320")
        // The written node's control changed every copy: the preview is warmer.
        let before = seen["rMinusBBefore"] as? Double ?? 0, after = seen["rMinusBAfter"] as? Double ?? 0
        #expect(seen["previewShown"] as? Bool == true && after > before + 20, "\(seen)")
        #expect((seen["fieldLabel"] as? String)?.contains("for w = 300") == true, "\(seen)")
        // The card lists both files it makes and shows the one picked.
        let name = Fixtures.samplePhotos[0].deletingPathExtension().lastPathComponent
        #expect(seen["files"] as? [String] == ["\(name)-300.jpg", "\(name)-400.jpg"], "\(seen)")
        #expect((seen["shownAfterPick"] as? String)?.contains("-400.jpg") == true, "\(seen)")
        #expect((seen["panelNote"] as? String)?.contains("2 copies") == true, "\(seen)")
        #expect(seen["saved"] as? Bool == true, "\(seen)")
        // Saved: the sepia value, and the copy's width in the foreach list; nothing else.
        let text = try String(contentsOfFile: preset, encoding: .utf8)
        #expect(text == original.replacingOccurrences(of: "\"intensity\": 0.2", with: "\"intensity\": 1")
            .replacingOccurrences(of: "[300, 400]", with: "[320, 400]"), "\(text)")
        // The saved preset is read again and makes the new copy's files.
        _ = try server.request("/viewport", method: "POST", body: "{\"visible\": [0]}")
        try server.wait { server.states($0).first == "done" }
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/\(name)-320.jpg").path))
    }

    @Test func pixelSizesAreScaledToThePreviewCopies() throws {
        let (_, preset) = try project("tune-scale")
        // A blur before the resize acts on the photo at full size: on a copy half as large it
        // must be half as wide to look the same.
        let text = try String(contentsOfFile: preset, encoding: .utf8)
            .replacingOccurrences(of: #"{ "id": "small","#, with: #"{ "id": "soft", "op": "blur", "sigma": 20 }, { "id": "small","#)
        try text.write(toFile: preset, atomically: true, encoding: .utf8)
        let server = try LiveServerProcess([preset, "--preview-size", "256"])
        defer { _ = server.stop() }
        _ = try server.request("/viewport", method: "POST", body: #"{"visible": [0]}"#)
        #expect(try change(server, "soft", "sigma", "30").status == 204)
        var scaled: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(600)
        while Date() < deadline, scaled.isEmpty {
            scaled = (try json(server.request("/draft")) as? [String: Any])?["scaled"] as? [[String: Any]] ?? []
            usleep(100_000)
        }
        let sigma = try #require(scaled.first { $0["node"] as? String == "soft" && $0["key"] as? String == "sigma" })
        // 256 of the photo's longest side (whatever it is, larger than 256).
        let photo = try #require(VipsHeader.longestSide(Fixtures.samplePhotos[0].path))
        #expect(sigma["from"] as? String == "30.0")
        #expect(abs((Double(sigma["to"] as? String ?? "") ?? 0) - 30 * 256 / Double(photo)) < 0.01, "\(sigma), photo \(photo)")
        // The saved value is untouched by the scaling: only the page's 30 is written.
        _ = try server.request("/save", method: "POST")
        #expect(try String(contentsOfFile: preset, encoding: .utf8).contains(#""sigma": 30 }"#))
    }

    @Test func aRunScopeLogoIsReadAndDecodedOncePerSession() throws {
        let (folder, _) = try project("tune-logo")
        try FileManager.default.copyItem(at: Fixtures.packageRoot.appendingPathComponent("Presets/samples/logo.png"),
                                         to: folder.appendingPathComponent("logo.png"))
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "photos/*.jpg" }, "output": "out",
              "graph": [ { "id": "logo-file", "op": "read", "scope": "run", "path": "logo.png" },
                         { "id": "logo", "op": "decode", "scope": "run", "from": "logo-file" },
                         { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "small", "op": "thumbnail", "width": 300 },
                         { "id": "marked", "op": "watermark", "overlay": "@logo", "margin": 8 },
                         { "id": "jpeg", "op": "encode", "format": "jpeg" }, { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder)
        let server = try LiveServerProcess([preset])
        defer { _ = server.stop() }
        let all = Array(0..<Fixtures.samplePhotos.count)
        _ = try server.request("/viewport", method: "POST", body: "{\"visible\": \(all)}")
        let state = try server.wait { server.states($0).allSatisfy { $0 == "done" } }
        #expect(server.states(state).count == all.count && server.states(state).allSatisfy { $0 == "done" })
        // Six items, each its own run: the logo was read and decoded by the first only.
        let starts = state["runScopeStarts"] as? [String: Int] ?? [:]
        #expect(starts == ["logo-file": 1, "logo": 1], "\(starts)")
    }

    @Test func aContactSheetIsMadeOnceEveryItemIsAndMadeAgainWhenTheyChange() throws {
        let (folder, _) = try project("tune-sheet")
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "photos/*.jpg" }, "output": "out",
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "small", "op": "thumbnail", "width": 200, "height": 150, "fit": "cover" },
                         { "id": "tone", "op": "sepia", "intensity": 0.5 },
                         { "id": "jpeg", "op": "encode", "format": "jpeg" }, { "id": "save", "op": "write", "path": "{name}.jpg" },
                         { "id": "sheet", "op": "vips.arrayjoin", "scope": "run", "in": "@tone[*]", "across": 3 },
                         { "id": "sheet-jpeg", "op": "encode", "scope": "run", "from": "sheet", "format": "jpeg" },
                         { "id": "sheet-save", "op": "write", "scope": "run", "from": "sheet-jpeg", "path": "sheet.jpg" } ] }
            """, in: folder)
        let server = try LiveServerProcess([preset])
        defer { _ = server.stop() }
        let sheet = folder.appendingPathComponent("out/sheet.jpg").path
        let all = Array(0..<Fixtures.samplePhotos.count)
        _ = try server.request("/viewport", method: "POST", body: "{\"visible\": \(all)}")
        try server.wait { server.states($0).allSatisfy { $0 == "done" } && FileManager.default.fileExists(atPath: sheet) }
        let first = try FileManager.default.attributesOfItem(atPath: sheet)[.modificationDate] as? Date
        #expect(first != nil, "no sheet")
        #expect(VipsHeader.longestSide(sheet) == 600)

        // The items change: they are made again, and so is the sheet.
        let text = try String(contentsOfFile: preset, encoding: .utf8)
        usleep(20_000)
        try text.replacingOccurrences(of: "\"intensity\": 0.5", with: "\"intensity\": 0.9").write(toFile: preset, atomically: true, encoding: .utf8)
        try server.wait { _ in
            let now = (try? FileManager.default.attributesOfItem(atPath: sheet))?[.modificationDate] as? Date
            return now != nil && now != first
        }
        let second = try FileManager.default.attributesOfItem(atPath: sheet)[.modificationDate] as? Date
        #expect(second != first)
    }
}

/// A photo's size from `vipsheader`, for expectations.
enum VipsHeader {
    static func longestSide(_ path: String) -> Int? {
        func field(_ name: String) -> Int? {
            let process = Process(), output = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["vipsheader", "-f", name, path]
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return nil }
            process.waitUntilExit()
            return Int(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard let width = field("width"), let height = field("height") else { return nil }
        return max(width, height)
    }
}
