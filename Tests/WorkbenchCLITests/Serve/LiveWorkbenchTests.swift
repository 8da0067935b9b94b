import Foundation
import Testing
import WorkbenchTestSupport

/// `workbench serve` as a user meets it: a real server process on 127.0.0.1, spoken to over
/// real HTTP (and, in `BrowserTests`, by headless Chromium).
final class LiveServerProcess {
    let process: CLIProcess
    let port: Int
    let token: String

    init(_ arguments: [String]) throws {
        process = try CLIProcess(["serve"] + arguments)
        let deadline = Date().addingTimeInterval(300)
        var found: (Int, String)?
        while Date() < deadline, found == nil {
            usleep(50_000)
            let out = process.stdoutSoFar
            if let range = out.range(of: #"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)"#, options: .regularExpression) {
                let url = String(out[range])
                let port = Int(url.split(separator: ":")[2].split(separator: "/")[0]) ?? 0
                found = (port, String(url.split(separator: "=")[1]))
            }
        }
        guard let (port, token) = found else {
            process.interrupt()
            throw TestFailure("serve printed no URL: \(process.wait().stderr)")
        }
        self.port = port
        self.token = token
    }

    var url: String { "http://127.0.0.1:\(port)/?token=\(token)" }

    func request(_ path: String, method: String = "GET", body: String? = nil, host: String? = nil, token: String? = nil,
                 limit: Int = Int.max) throws -> RawHTTP.Response {
        let separator = path.contains("?") ? "&" : "?"
        return try RawHTTP.send(method, port: port, path: path + separator + "token=" + (token ?? self.token), host: host, body: body, limit: limit)
    }

    func state() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: request("/state").body) as? [String: Any] ?? [:]
    }

    func rows() throws -> [[String: Any]] { try state()["rows"] as? [[String: Any]] ?? [] }

    /// Polls the state until `condition` holds (or ten minutes pass: only a hang takes that long); returns the last state.
    @discardableResult
    func wait(until condition: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(600)
        var last: [String: Any] = [:]
        while Date() < deadline {
            last = try state()
            if condition(last) { return last }
            usleep(100_000)
        }
        return last
    }

    func states(_ state: [String: Any]) -> [String] {
        (state["rows"] as? [[String: Any]] ?? []).map { $0["state"] as? String ?? "" }
    }

    private var stopped: Int32?

    /// Ctrl-C (once); returns the exit status.
    func stop() -> Int32 {
        if let stopped { return stopped }
        process.interrupt()
        let status = process.wait().status
        stopped = status
        return status
    }
}

@Suite(.serialized) struct LiveWorkbenchTests {
    @Test func theServerAnswersOnlyWithTheTokenAndItsOwnNameAndServesOnlyOutputs() throws {
        let folder = try Fixtures.temporaryDirectory("serve")
        let out = folder.appendingPathComponent("out")
        let server = try LiveServerProcess([Fixtures.presets.appendingPathComponent("sepia-thumbnails.json").path, "--out", out.path])
        defer { _ = server.stop() }

        let page = try server.request("/")
        #expect(page.status == 200 && page.text.contains("<title>FilterWorkbench</title>") && page.text.contains(server.token))
        #expect(try server.request("/", token: "").status == 403)
        #expect(try server.request("/", token: String(repeating: "0", count: 64)).status == 403)
        // A page on another site whose name now points to 127.0.0.1 (DNS rebinding) is refused.
        let rebound = try server.request("/state", host: "attacker.example:\(server.port)")
        #expect(rebound.status == 403 && rebound.text.contains("answers only to the address it printed"))
        #expect(try server.request("/state", host: "localhost:\(server.port)").status == 200)

        // Nothing runs until a page says what it shows; then those items run, first. Items start
        // only from the page's viewport, marked at once as starting, and the session filled its
        // queue before the server answered its first request above: one started wrongly shows now.
        #expect(try server.states(server.state()).allSatisfy { $0 == "queued" })
        let viewport = try server.request("/viewport", method: "POST", body: #"{"visible": [4, 5], "near": [3]}"#)
        #expect(viewport.status == 204)
        let state = try server.wait { self.statesOf($0, [3, 4, 5]).allSatisfy { $0 == "done" } }
        #expect(state["startOrder"] as? [Int] == [4, 5, 3], "\(state)")
        #expect(server.states(state)[0] == "queued")
        let bad = try server.request("/viewport", method: "POST", body: "[1, 2]")
        #expect(bad.status == 400)

        let rows = try server.rows()
        let written = try #require((rows[4]["outputs"] as? [String])?.first)
        let file = try server.request("/file/output/" + written)
        #expect(file.status == 200 && file.body == FileManager.default.contents(atPath: out.appendingPathComponent(written).path))
        let preview = try server.request("/preview/input/4")
        #expect(preview.status == 200 && preview.body.prefix(2) == Data([0xFF, 0xD8]))
        #expect(try server.request("/preview/output/" + written).body.prefix(2) == Data([0xFF, 0xD8]))
        // Confined to the output folder: no climbing, no hidden files, no links out.
        try "secret".write(to: folder.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("link.txt"), withDestinationURL: folder.appendingPathComponent("secret.txt"))
        try "secret".write(to: out.appendingPathComponent(".hidden.txt"), atomically: true, encoding: .utf8)
        for path in ["/file/output/%2e%2e/secret.txt", "/file/output/..%2Fsecret.txt", "/file/output/link.txt", "/file/output/%2Fetc%2Fpasswd",
                     "/file/output/.hidden.txt", "/preview/input/99", "/preview/output/%2e%2e/secret.txt"] {
            let refused = try server.request(path)
            #expect(refused.status == 404 && !refused.text.contains("secret"), "\(path): \(refused.status)")
        }

        // The event stream starts with the whole state.
        let events = try server.request("/events", limit: 200)
        #expect(events.status == 200 && events.headers.contains("text/event-stream") && events.text.hasPrefix("event: snapshot\ndata: {"))
        #expect(server.stop() == 130)
    }

    func statesOf(_ state: [String: Any], _ indices: [Int]) -> [String] {
        let rows = state["rows"] as? [[String: Any]] ?? []
        return indices.map { rows.indices.contains($0) ? rows[$0]["state"] as? String ?? "" : "" }
    }

    @Test func aSavedPresetIsCheckedAndOnlyChangedRecipesRunAgain() throws {
        let (folder, preset) = try IncrementalRunTests.project("serve-edit")
        let out = folder.appendingPathComponent("out")
        let server = try LiveServerProcess([preset])
        defer { _ = server.stop() }
        let all = Array(0..<6)
        _ = try server.request("/viewport", method: "POST", body: #"{"visible": [0, 1, 2, 3, 4, 5]}"#)
        try server.wait { self.statesOf($0, all).allSatisfy { $0 == "done" } }
        let before = IncrementalRunTests.stamps(out)
        #expect(before.count == 12)

        // A mistake: shown with its line and column, nothing runs, nothing is lost.
        let text = try String(contentsOfFile: preset, encoding: .utf8)
        try text.replacingOccurrences(of: #""Q": 70"#, with: #""Q": 700"#).write(toFile: preset, atomically: true, encoding: .utf8)
        let broken = try server.wait { ($0["preset"] as? [String: Any])?["ok"] as? Bool == false }
        let errors = ((broken["preset"] as? [String: Any])?["errors"] as? [String])?.joined(separator: "\n") ?? ""
        #expect(errors.contains("preset.json:6:") && errors.contains("graph[5].Q"), "\(errors)")

        // Saved again with only a comment-like change of spacing: every file is up to date.
        try text.replacingOccurrences(of: "\"graph\": [", with: "\"graph\":  [").write(toFile: preset, atomically: true, encoding: .utf8)
        try server.wait { ($0["preset"] as? [String: Any])?["ok"] as? Bool == true && self.statesOf($0, all).allSatisfy { $0 == "upToDate" } }
        #expect(IncrementalRunTests.stamps(out) == before)

        // The WebP quality changes: the WebP files are made again, the JPEGs stay.
        try text.replacingOccurrences(of: #""Q": 70"#, with: #""Q": 40"#).write(toFile: preset, atomically: true, encoding: .utf8)
        try server.wait { self.statesOf($0, all).allSatisfy { $0 == "done" } && ($0["running"] as? Bool) == false }
        let after = IncrementalRunTests.stamps(out)
        #expect(Set(before.keys.filter { after[$0] != before[$0] }) == Set(before.keys.filter { $0.hasSuffix(".webp") }))
    }
}

/// The page in a real browser: headless Chromium from Debian, driven by Selenium.
@Suite(.serialized) struct BrowserTests {
    @Test func whatIsOnScreenRunsFirstAndClosingThePageStopsTheWork() throws {
        let folder = try Fixtures.temporaryDirectory("browser")
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for copy in 0..<10 {
            for photo in Fixtures.samplePhotos {
                try FileManager.default.copyItem(at: photo, to: photos.appendingPathComponent(String(format: "%02d-", copy) + photo.lastPathComponent))
            }
        }
        // About a second of work per photo: enough to see what runs first, and to close the page mid-work.
        let preset = try Fixtures.writePreset("""
            { "version": 1, "inputs": { "glob": "photos/*.jpg" }, "output": "out",
              "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" },
                         { "id": "blur", "op": "vips.gaussblur", "sigma": 40 }, { "id": "small", "op": "thumbnail", "width": 400 },
                         { "id": "jpeg", "op": "encode", "format": "jpeg" }, { "id": "save", "op": "write", "path": "{name}.jpg" } ] }
            """, in: folder)
        let server = try LiveServerProcess([preset])
        defer { _ = server.stop() }
        let shot = folder.appendingPathComponent("page.png")

        let browser = Process(), output = Pipe(), errors = Pipe()
        // Debian's own Python, which sees Debian's python3-selenium (a `python3` earlier on the
        // PATH, such as pyenv's, would not).
        browser.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        browser.arguments = [Fixtures.packageRoot.appendingPathComponent("Tests/Support/browser_test.py").path, server.url, shot.path]
        browser.standardOutput = output
        browser.standardError = errors
        try browser.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        #expect(browser.terminationStatus == 0, "\(complaint)")
        let seen = try JSONSerialization.jsonObject(with: printed) as? [String: Any] ?? [:]
        let first = seen["visibleAtStart"] as? [Int] ?? []
        let bottom = seen["visibleAfterScroll"] as? [Int] ?? []
        #expect(!first.isEmpty && first.count < 30 && seen["visibleDone"] as? Bool == true, "\(seen)")
        #expect(bottom.contains(59), "\(seen)")

        // The screenshot shows the page.
        let png = try Data(contentsOf: shot)
        #expect(png.count > 20_000 && png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))

        // Closing the page stopped the work; the server stays up for the next page.
        let state = try server.wait { ($0["running"] as? Bool) == false }
        let order = state["startOrder"] as? [Int] ?? []
        #expect(Set(order.prefix(first.count)) == Set(first), "started \(order), visible first \(first)")
        // After the scroll the bottom ran, and the middle, never shown nor near, never did.
        #expect(order.contains { bottom.contains($0) } && !order.contains(30), "\(order)")
        let stopped = (state["cancelledOnClose"] as? [Int] ?? []) + (state["cancelledOffScreen"] as? [Int] ?? [])
        #expect(!stopped.isEmpty, "\(state)")
        #expect(try server.request("/").status == 200)
    }
}
