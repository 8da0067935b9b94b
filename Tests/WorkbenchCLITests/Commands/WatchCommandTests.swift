import Foundation
import Testing
import WorkbenchTestSupport

/// Waits for `condition`, looking every 20 ms; two minutes only end a hang (the wait is then
/// recorded as the test's failure).
func waitUntil(_ what: @autoclosure () -> String, _ condition: () -> Bool) {
    let limit = ContinuousClock.now + .seconds(120)
    while !condition() {
        guard ContinuousClock.now < limit else {
            Issue.record("waited two minutes for \(what())")
            return
        }
        usleep(20_000)
    }
}

/// `workbench watch` on real folders with inotify: the process runs as a user starts it, files
/// arrive as uploaders deliver them (renamed in, written and closed), and every wait is for a
/// file or a line to appear (the deadline only ends a hang).
@Suite struct WatchCommandTests {
    static let thumbnails = #"""
        {"version": 1, "graph": [{"op": "read"}, {"op": "decode"}, {"op": "thumbnail", "width": 96},
          {"op": "encode", "format": "jpeg", "Q": 80}, {"op": "write", "path": "{dir}/{name}.jpg"}]}
        """#

    /// A watch started on `folder` (or the preset's own glob), once it says it is watching.
    private func watch(_ preset: String, _ arguments: [String]) throws -> CLIProcess {
        let process = try CLIProcess(["watch", preset] + arguments)
        waitUntil("the watch to start: \(process.stderrSoFar)") { process.stderrSoFar.contains("Watching ") || process.stderrSoFar.contains("rror") }
        #expect(process.stderrSoFar.contains("Watching "), "\(process.stderrSoFar)")
        return process
    }

    private func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    private func photo(_ name: String) -> URL { Fixtures.samples.appendingPathComponent(name) }

    /// Delivered as rsync and scp deliver: written under a hidden name, then renamed in.
    private func deliver(_ photo: URL, to destination: URL) throws {
        let hidden = destination.deletingLastPathComponent().appendingPathComponent(".part-" + destination.lastPathComponent)
        try FileManager.default.copyItem(at: photo, to: hidden)
        // rename(2), which replaces a file already there, as uploaders do.
        #expect(rename(hidden.path, destination.path) == 0)
    }

    @Test func aFileRenamedInIsMadeAndOneStillBeingWrittenWaitsForItsWriter() throws {
        let folder = try Fixtures.temporaryDirectory("watch-arrivals")
        let inbox = folder.appendingPathComponent("in"), out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let preset = try Fixtures.writePreset(Self.thumbnails, in: folder)
        let watcher = try watch(preset, [inbox.path, "--out", out.path])

        // A writer that pauses half-way: nothing is made of it while it holds the file.
        let bytes = try Data(contentsOf: photo("Wine.jpg"))
        let slow = inbox.appendingPathComponent("slow.jpg")
        let writer = FileHandle(fileDescriptor: open(slow.path, O_CREAT | O_WRONLY | O_TRUNC, 0o644), closeOnDealloc: true)
        try writer.write(contentsOf: bytes.prefix(bytes.count / 2))

        // Events come in order: once a file delivered after the half is made, the half had its
        // chance to be taken, and was not.
        try deliver(photo("Bridge.jpg"), to: inbox.appendingPathComponent("bridge.jpg"))
        waitUntil("bridge.jpg to be made") { exists(out.appendingPathComponent("bridge.jpg")) }
        #expect(!exists(out.appendingPathComponent("slow.jpg")))
        #expect(!watcher.stdoutSoFar.contains("slow"), "\(watcher.stdoutSoFar)")

        try writer.write(contentsOf: bytes.dropFirst(bytes.count / 2))
        try writer.close()
        waitUntil("slow.jpg to be made once its writer closed it") { exists(out.appendingPathComponent("slow.jpg")) }

        kill(watcher.processIdentifier, SIGTERM)
        let result = watcher.wait(watchdog: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.hasPrefix("ok      bridge → bridge.jpg") }, "\(result.lines)")
        #expect(result.lines.contains { $0.hasPrefix("ok      slow → slow.jpg") }, "\(result.lines)")
        #expect(!result.lines.contains { $0.hasPrefix("FAILED") }, "\(result.lines)")
        #expect(result.stderr.contains("Stopping: no new files are taken"))
    }

    @Test func whatArrivedWhileDownIsMadeAtStartAndARunAfterAgrees() throws {
        let folder = try Fixtures.temporaryDirectory("watch-start")
        let inbox = folder.appendingPathComponent("in"), out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: photo("Bridge.jpg"), to: inbox.appendingPathComponent("a.jpg"))
        try FileManager.default.copyItem(at: photo("Wine.jpg"), to: inbox.appendingPathComponent("b.jpg"))
        let preset = try Fixtures.writePreset(Self.thumbnails, in: folder)
        let report = folder.appendingPathComponent("report.json")
        let watcher = try watch(preset, [inbox.path, "--out", out.path, "--report", report.path])
        waitUntil("both to be made") { exists(out.appendingPathComponent("a.jpg")) && exists(out.appendingPathComponent("b.jpg")) }
        // The manifest line is written as each item ends: wait for the watch to say both ended.
        waitUntil("both lines") { watcher.stdoutSoFar.contains("→ a.jpg") && watcher.stdoutSoFar.contains("→ b.jpg") }
        kill(watcher.processIdentifier, SIGTERM)
        #expect(watcher.wait(watchdog: 120).status == 0)
        // The report, written as the watch stopped: both items with their outputs.
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let items = try #require(document["items"] as? [[String: Any]])
        #expect(Set(items.compactMap { $0["name"] as? String }) == ["a", "b"] && items.allSatisfy { $0["status"] as? String == "succeeded" },
                "\(items)")

        let rerun = try CLIProcess.run(["run", preset, inbox.path, "--out", out.path])
        #expect(rerun.status == 0)
        #expect(rerun.lines.last?.hasPrefix("2 items: 2 up to date") == true, "\(rerun.lines)")

        // And a watch started again makes nothing: both are up to date.
        let again = try watch(preset, [inbox.path, "--out", out.path])
        waitUntil("a third photo") {
            if !exists(inbox.appendingPathComponent("c.jpg")) { try? deliver(photo("sunset.jpg"), to: inbox.appendingPathComponent("c.jpg")) }
            return exists(out.appendingPathComponent("c.jpg"))
        }
        kill(again.processIdentifier, SIGTERM)
        let second = again.wait(watchdog: 120)
        #expect(second.status == 0)
        #expect(second.lines.filter { $0.hasPrefix("ok ") } .count == 1, "\(second.lines)")
        #expect(second.lines.last?.contains("2 up to date") == true, "\(second.lines)")
    }

    @Test func aReplacedFileIsMadeAgainAndADeletedOneIsPrunedOnlyWhenAsked() throws {
        let folder = try Fixtures.temporaryDirectory("watch-replace")
        let inbox = folder.appendingPathComponent("in"), out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let preset = try Fixtures.writePreset(Self.thumbnails, in: folder)
        for prune in [false, true] {
            let target = out.appendingPathComponent(prune ? "pruned" : "kept")
            let watcher = try watch(preset, [inbox.path, "--out", target.path] + (prune ? ["--prune"] : []))
            let made = target.appendingPathComponent("photo.jpg")
            try deliver(photo("Bridge.jpg"), to: inbox.appendingPathComponent("photo.jpg"))
            waitUntil("the first version") { exists(made) }
            let first = try Data(contentsOf: made)
            // Replaced by another photo: made again, from the new one.
            try FileManager.default.removeItem(at: made)
            try deliver(photo("Wine.jpg"), to: inbox.appendingPathComponent("photo.jpg"))
            waitUntil("the second version") { exists(made) }
            let second = try Data(contentsOf: made)
            #expect(first != second)
            // A marker after the deletion: once it is made, the deletion was handled.
            try FileManager.default.removeItem(at: inbox.appendingPathComponent("photo.jpg"))
            try deliver(photo("sunset.jpg"), to: inbox.appendingPathComponent("marker-\(prune).jpg"))
            waitUntil("the marker") { exists(target.appendingPathComponent("marker-\(prune).jpg")) }
            if prune { waitUntil("the prune") { !exists(made) } }
            #expect(exists(made) == !prune)
            kill(watcher.processIdentifier, SIGTERM)
            let result = watcher.wait(watchdog: 120)
            #expect(result.status == 0)
            #expect(result.lines.contains("pruned  photo.jpg: removed photo.jpg") == prune, "\(result.lines)")
            try FileManager.default.removeItem(at: inbox.appendingPathComponent("marker-\(prune).jpg"))
        }
    }

    @Test func thePresetsGlobIsWatchedIntoNewSubfolders() throws {
        let folder = try Fixtures.temporaryDirectory("watch-glob")
        let inbox = folder.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let preset = try Fixtures.writePreset(#"""
            {"version": 1, "inputs": {"glob": "uploads/**/*.jpg"}, "output": "out", "graph": [{"op": "read"}, {"op": "decode"},
              {"op": "thumbnail", "width": 96}, {"op": "encode", "format": "jpeg"}, {"op": "write", "path": "{dir}/{name}.jpg"}]}
            """#, in: folder)
        let watcher = try watch(preset, [])
        let nested = inbox.appendingPathComponent("2026/11")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try deliver(photo("Bridge.jpg"), to: nested.appendingPathComponent("bridge.jpg"))
        waitUntil("the nested photo") { exists(folder.appendingPathComponent("out/2026/11/bridge.jpg")) }
        // A file of another kind in the tree is not an input.
        try deliver(photo("logo.png"), to: nested.appendingPathComponent("logo.png"))
        try deliver(photo("Wine.jpg"), to: inbox.appendingPathComponent("wine.jpg"))
        waitUntil("the top-level photo") { exists(folder.appendingPathComponent("out/wine.jpg")) }
        kill(watcher.processIdentifier, SIGINT)
        let result = watcher.wait(watchdog: 120)
        #expect(result.status == 130)
        #expect(!result.stdout.contains("logo"), "\(result.lines)")
    }

    /// Killed outright with photos still to make, then started again: every photo is made, and
    /// no half-written file is left (the start's listing finds what the dead watch did not do).
    @Test func aWatchKilledMidBurstLosesNothingOnceStartedAgain() throws {
        let folder = try Fixtures.temporaryDirectory("watch-kill")
        let inbox = folder.appendingPathComponent("in"), out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let preset = try Fixtures.writePreset(Self.thumbnails, in: folder)
        let watcher = try watch(preset, [inbox.path, "--out", out.path, "--jobs", "1"])
        let names = (0..<12).map { "photo-\($0)" }
        let photos = ["Bridge.jpg", "Wine.jpg", "sunset.jpg", "seeding.jpg"]
        for (n, name) in names.enumerated() { try deliver(photo(photos[n % photos.count]), to: inbox.appendingPathComponent(name + ".jpg")) }
        waitUntil("a first photo to be made") { watcher.stdoutSoFar.contains("ok ") }
        kill(watcher.processIdentifier, SIGKILL)
        let killed = watcher.wait()
        #expect(killed.status != 0)
        let madeBefore = names.filter { exists(out.appendingPathComponent($0 + ".jpg")) }.count
        #expect(madeBefore < names.count, "the kill came after every photo was made: \(killed.lines)")

        let again = try watch(preset, [inbox.path, "--out", out.path])
        waitUntil("every photo") { names.allSatisfy { exists(out.appendingPathComponent($0 + ".jpg")) } }
        kill(again.processIdentifier, SIGTERM)
        let result = again.wait(watchdog: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.lines.contains { $0.hasPrefix("FAILED") }, "\(result.lines)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "\(left)")
        for name in names {
            let data = try Data(contentsOf: out.appendingPathComponent(name + ".jpg"))
            #expect(data.starts(with: [0xFF, 0xD8]) && data.suffix(2) == Data([0xFF, 0xD9]), "\(name) is not a whole JPEG")
        }
    }

    /// More events than the kernel's queue holds (the watch is stopped while a burst lands, its
    /// queue made 16 events long): the overflow starts a listing, and every photo is made.
    @Test(.enabled(if: getuid() == 0, "sets fs.inotify.max_queued_events, which needs root"))
    func anOverflowedQueueIsAListingNotALoss() throws {
        let folder = try Fixtures.temporaryDirectory("watch-overflow")
        let inbox = folder.appendingPathComponent("in"), out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let preset = try Fixtures.writePreset(Self.thumbnails, in: folder)
        let setting = "/proc/sys/fs/inotify/max_queued_events"
        let saved = try String(contentsOfFile: setting, encoding: .utf8)
        // The queue's length is taken when the watch starts: set for it alone, then put back.
        try "16\n".write(toFile: setting, atomically: false, encoding: .utf8)
        let watcher: CLIProcess
        do {
            defer { try? saved.write(toFile: setting, atomically: false, encoding: .utf8) } // put back even if the start failed
            watcher = try watch(preset, [inbox.path, "--out", out.path])
        }
        kill(watcher.processIdentifier, SIGSTOP)
        let names = (0..<40).map { "burst-\($0)" }
        for name in names { try deliver(photo("Bridge.jpg"), to: inbox.appendingPathComponent(name + ".jpg")) }
        kill(watcher.processIdentifier, SIGCONT)
        waitUntil("every photo of the burst") { names.allSatisfy { exists(out.appendingPathComponent($0 + ".jpg")) } }
        kill(watcher.processIdentifier, SIGTERM)
        let result = watcher.wait(watchdog: 120)
        #expect(result.status == 0)
        #expect(result.stderr.contains("the kernel's event queue overflowed"), "\(result.stderr)")
    }

    /// `--listen`: health while the folder is there, 503 with the reason once it is deleted, and
    /// metrics that count what arrived and what was made.
    @Test func healthAndMetricsSayWhatTheWatchDid() throws {
        let folder = try Fixtures.temporaryDirectory("watch-metrics")
        let inbox = folder.appendingPathComponent("in"), out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let preset = try Fixtures.writePreset(Self.thumbnails, in: folder)
        let watcher = try watch(preset, [inbox.path, "--out", out.path, "--listen", "127.0.0.1:0"])
        waitUntil("the address") { watcher.stderrSoFar.contains("/metrics.") }
        let port = try #require(watcher.stderrSoFar.firstMatch(of: /127\.0\.0\.1:(\d+)\/healthz/).flatMap { Int($0.1) })
        let healthy = try RawHTTP.send(port: port, path: "/healthz")
        #expect(healthy.status == 200 && healthy.text == "watching\n")

        try deliver(photo("Bridge.jpg"), to: inbox.appendingPathComponent("a.jpg"))
        try deliver(photo("logo.png"), to: inbox.appendingPathComponent("notes.txt"))
        waitUntil("a.jpg's line") { watcher.stdoutSoFar.contains("→ a.jpg") }
        let metrics = try RawHTTP.send(port: port, path: "/metrics").text
        // Six events: each file written under a hidden name (closed, then moved from there: not
        // inputs) and renamed in; of those, only a.jpg is an input.
        for line in ["workbench_watch_events_received_total 6", "workbench_watch_events_ignored_total 5", "workbench_watch_items_done_total 1",
                     "workbench_watch_items_failed_total 0", "workbench_watch_queue_depth 0", "workbench_watch_source_up 1",
                     "workbench_watch_latency_seconds_count 1", "workbench_watch_latency_seconds_bucket{le=\"+Inf\"} 1"] {
            #expect(metrics.split(separator: "\n").contains(Substring(line)), "\(line) not in:\n\(metrics)")
        }

        try FileManager.default.removeItem(at: inbox)
        waitUntil("the loss to be said") { watcher.stderrSoFar.contains("Not watching any more") }
        let lost = try RawHTTP.send(port: port, path: "/healthz")
        #expect(lost.status == 503 && lost.text.contains("was deleted"), "\(lost.text)")
        #expect(try RawHTTP.send(port: port, path: "/nothing").status == 404)
        kill(watcher.processIdentifier, SIGTERM)
        #expect(watcher.wait(watchdog: 120).status == 0)
    }

    @Test func anOutputFolderInsideTheWatchedOneIsRefused() throws {
        let folder = try Fixtures.temporaryDirectory("watch-loop")
        let preset = try Fixtures.writePreset(Self.thumbnails, in: folder)
        let result = try CLIProcess.run(["watch", preset, folder.path, "--out", folder.appendingPathComponent("thumbs").path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("is inside the watched folder"), "\(result.stderr)")
        let missing = try CLIProcess.run(["watch", preset, folder.appendingPathComponent("nowhere").path, "--out", "/tmp"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("No folder"), "\(missing.stderr)")
    }
}
