import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchNet

/// Downloads from presets against a local server that misbehaves on purpose: each case is
/// reported with its cause, and the server's counts prove the retries.
@Suite struct MisbehavingServerTests {
    private let registry = OpRegistry(CoreOps.all + NetOps.all)

    /// Runs one `download` node (with `options`) over `paths` on the server; returns each item's
    /// failure message ("" for success) by item name, and the run's seconds.
    private func download(_ server: TestServer, _ paths: [String], options: String = "") async throws -> ([String: String], Double) {
        let folder = try Fixtures.temporaryDirectory("net")
        let json = #"{"version": 1, "graph": [{"op": "download"\#(options.isEmpty ? "" : ", " + options)}, {"op": "write", "path": "{index}.bin"}]}"#
        let preset = try PresetLoader(registry: registry).load(json: Array(json.utf8), file: "net.json", baseDirectory: folder.path)
        let items = paths.enumerated().map { Item(index: $0, name: "item\($0)", source: server.url($1)) }
        let started = ContinuousClock.now
        let run = PresetRun.start(preset, items: .list(items), output: try OutputRoot(folder.appendingPathComponent("out").path),
                                  options: RunOptions(eventDetail: .items))
        var failures: [String: String] = [:]
        for await event in run.events {
            if case .itemFinished(let report) = event { failures[report.item.name] = report.failure?.message ?? "" }
        }
        let elapsed = ContinuousClock.now - started
        return (failures, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }

    @Test func retriesServerErrorsUntilTheyPass() async throws {
        let server = try TestServer()
        let (failures, _) = try await download(server, ["flaky/Bridge.jpg?fail=1", "status/404"], options: #""retries": 2, "retryDelay": 0.05"#)
        #expect(failures["item0"] == "")
        #expect(failures["item1"]?.contains("answered HTTP 404 Not Found") == true)
        let counts = try server.requestCounts()
        #expect(counts["/flaky/Bridge.jpg"] == 2)
        // Other 4xx answers are never retried.
        #expect(counts["/status/404"] == 1)
    }

    @Test func itemsWithTheSameURLShareOneTransfer() async throws {
        let server = try TestServer()
        let (failures, _) = try await download(server, Array(repeating: "slow/Bridge.jpg?delay=0.4", count: 3))
        #expect(failures.values.allSatisfy(\.isEmpty) && failures.count == 3)
        #expect(try server.requestCounts()["/slow/Bridge.jpg"] == 1)
    }

    @Test func progressEventsCarryBytesAndTheDeclaredTotal() async throws {
        let server = try TestServer()
        let folder = try Fixtures.temporaryDirectory("progress")
        let json = #"{"version": 1, "graph": [{"op": "download"}, {"op": "write", "path": "{index}.bin"}]}"#
        let preset = try PresetLoader(registry: registry).load(json: Array(json.utf8), file: "p.json", baseDirectory: folder.path)
        let items = [Item(index: 0, name: "big", source: server.url("big?bytes=3000000&declare=1")),
                     Item(index: 1, name: "streamed", source: server.url("big?bytes=200000&declare=0"))]
        let run = PresetRun.start(preset, items: .list(items), output: try OutputRoot(folder.appendingPathComponent("out").path),
                                  options: RunOptions(eventDetail: .nodes))
        var progress: [String: [ProgressEvent]] = [:]
        for await event in run.events {
            if case .progress(let p) = event { progress[p.item.name, default: []].append(p) }
        }
        let big = try #require(progress["big"]?.last)
        #expect(big.node == "download" && big.bytes == 3_000_000 && big.expectedBytes == 3_000_000)
        #expect(progress["big"]?.map(\.bytes) == progress["big"]?.map(\.bytes).sorted())
        #expect(progress["streamed"]?.last?.bytes == 200_000)
    }

    /// How many transfers run side by side, counted from the run's own events (not timed: a
    /// loaded machine slows the server, not the count).
    @Test(arguments: [(nil, 4), (2, 2)] as [(Int?, Int)])
    func theNetQueueCapsTransfersRunningSideBySide(concurrency: Int?, expected: Int) async throws {
        let server = try TestServer()
        let folder = try Fixtures.temporaryDirectory("side-by-side")
        let queues = concurrency.map { #", "queues": {"net": {"concurrency": \#($0)}}"# } ?? ""
        let json = #"{"version": 1\#(queues), "graph": [{"op": "download"}, {"op": "write", "path": "{index}.bin"}]}"#
        let preset = try PresetLoader(registry: registry).load(json: Array(json.utf8), file: "s.json", baseDirectory: folder.path)
        // Four distinct URLs, each answered after 1 s, on the default net queue (8 at a time).
        let items = (0..<4).map { Item(index: $0, name: "item\($0)", source: server.url("slow/Bridge.jpg?delay=1&n=\($0)")) }
        let run = PresetRun.start(preset, items: .list(items), output: try OutputRoot(folder.appendingPathComponent("out").path),
                                  options: RunOptions(eventDetail: .nodes))
        // Each transfer's start and end on the scheduler's clock. A transfer's end is recorded a
        // moment after its permit passes to the next (the next can start first), so a quarter of
        // a second at the end of each (of its second) does not count as side by side.
        var marks: [(time: Double, change: Int)] = [], ended = 0
        for await event in run.events {
            guard case .node(let node) = event, node.node == "download" else { continue }
            if node.state == .running { marks.append((node.time, 1)) }
            if node.state.isTerminal { marks.append((node.time - 0.25, -1)) }
            if node.state == .succeeded { ended += 1 }
        }
        #expect(ended == 4)
        var running = 0, most = 0
        for mark in marks.sorted(by: { ($0.time, $0.change) < ($1.time, $1.change) }) {
            running += mark.change
            most = max(most, running)
        }
        // Default (8 at a time): all four at once, each answer taking a second. Two at a time: two.
        #expect(most == expected, "at most \(most) transfers ran side by side with net concurrency \(concurrency ?? 8)")
    }

    @Test func spooledBodiesAreWrittenWhole() async throws {
        let server = try TestServer()
        let folder = try Fixtures.temporaryDirectory("spool-write")
        let json = #"{"version": 1, "graph": [{"op": "download", "memoryLimit": 1000000}, {"op": "write", "path": "{index}.bin"}]}"#
        let preset = try PresetLoader(registry: registry).load(json: Array(json.utf8), file: "w.json", baseDirectory: folder.path)
        let out = folder.appendingPathComponent("out")
        let run = PresetRun.start(preset, items: .list([Item(index: 0, name: "big", source: server.url("big?bytes=3000000&declare=0"))]),
                                  output: try OutputRoot(out.path))
        #expect(await run.result.succeeded == 1)
        let written = try Data(contentsOf: out.appendingPathComponent("0.bin"))
        #expect(written.count == 3_000_000 && written.allSatisfy { $0 == 0 })
    }

    @Test func honoursRetryAfter() async throws {
        let server = try TestServer()
        let (failures, seconds) = try await download(server, ["limited/Wine.jpg?wait=1"], options: #""retries": 1, "retryDelay": 0.01"#)
        #expect(failures["item0"] == "")
        #expect(seconds >= 0.95, "the retry came after \(seconds) s, before the server's Retry-After of 1 s")
        #expect(try server.requestCounts()["/limited/Wine.jpg"] == 2)
        #expect(Transfer.seconds(retryAfter: "120") == 120)
        #expect((Transfer.seconds(retryAfter: "Wed, 21 Oct 2099 07:28:00 GMT") ?? 0) > 1_000_000)
        // A server's nonsense is no delay (the scheduler's backoff applies), never a trap or an infinite wait.
        for nonsense in ["1e400", "nan", "inf", "-5", "99999999999999999999x"] {
            #expect(Transfer.seconds(retryAfter: nonsense) == nil, "\(nonsense)")
        }
    }

    @Test func slowAndStalledTransfersAreCut() async throws {
        let server = try TestServer()
        let (byTimeout, _) = try await download(server, ["drip?seconds=10"], options: #""timeout": 1.5"#)
        #expect(byTimeout["item0"]?.contains("timed out after 1.5 s") == true || byTimeout["item0"]?.contains("did not answer in time") == true,
                "\(byTimeout)")
        let (bySpeed, _) = try await download(server, ["drip?seconds=10"], options: #""lowSpeedLimit": 100, "lowSpeedTime": 1"#)
        #expect(bySpeed["item0"]?.contains("sent less than 100 bytes a second for 1 s") == true, "\(bySpeed)")
    }

    @Test func redirectsAreFollowedWithinLimitsAndNeverToFiles() async throws {
        let server = try TestServer()
        let (failures, _) = try await download(server, ["redirect/3/Bridge.jpg", "loop", "tofile", "redirect/9/Wine.jpg"])
        #expect(failures["item0"] == "")
        #expect(failures["item1"]?.contains("more than 5 redirects (a loop?)") == true, "\(failures)")
        #expect(failures["item2"]?.contains("file:///etc/passwd") == true && failures["item2"]?.contains("only http and https are followed") == true,
                "\(failures)")
        #expect(failures["item3"]?.contains("more than 5 redirects") == true)
    }

    @Test func oversizeBodiesAreRefusedWithAndWithoutALength() async throws {
        let server = try TestServer()
        let (failures, _) = try await download(server, ["big?bytes=3000000&declare=1", "big?bytes=3000000&declare=0", "big?bytes=500000&declare=0"],
                                         options: #""maxBytes": 1000000"#)
        #expect(failures["item0"]?.contains("is larger than 1000000 bytes") == true, "\(failures)")
        #expect(failures["item1"]?.contains("is larger than 1000000 bytes") == true, "\(failures)")
        #expect(failures["item2"] == "")
    }

    @Test func resetsAndWrongTypesAreReportedOrIgnored() async throws {
        let server = try TestServer()
        let (failures, _) = try await download(server, ["reset", "typed/Bridge.jpg"])
        #expect(failures["item0"]?.contains("could not be fetched") == true, "\(failures)")
        // A wrong Content-Type does not matter: decode sniffs the bytes.
        #expect(failures["item1"] == "")
    }

    @Test func theUserAgentNamesThisRelease() async throws {
        let server = try TestServer()
        let folder = try Fixtures.temporaryDirectory("agent")
        let json = #"{"version": 1, "graph": [{"op": "download"}, {"op": "write", "path": "{index}.json"}]}"#
        let preset = try PresetLoader(registry: registry).load(json: Array(json.utf8), file: "a.json", baseDirectory: folder.path)
        let out = folder.appendingPathComponent("out")
        _ = await PresetRun.start(preset, items: .list([Item(index: 0, name: "echo", source: server.url("echo-headers"))]),
                                  output: try OutputRoot(out.path)).result
        let echoed = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("0.json"))) as? [String: String]
        #expect(echoed?["User-Agent"] == "FilterWorkbench/\(Release.version) libcurl", "\(echoed ?? [:])")
    }

    @Test func headersAndCredentialsAreSentButNeverShown() async throws {
        let server = try TestServer()
        setenv("WORKBENCH_TEST_TOKEN", "Bearer s3cr3t-value", 1)
        defer { unsetenv("WORKBENCH_TEST_TOKEN") }
        let folder = try Fixtures.temporaryDirectory("headers")
        let json = #"{"version": 1, "graph": [{"op": "download", "headers": {"User-Agent": "TestBot/2.0", "X-Trace": "abc"}, "authorizationEnv": "WORKBENCH_TEST_TOKEN"}, {"op": "write", "path": "{index}.json"}]}"#
        let preset = try PresetLoader(registry: registry).load(json: Array(json.utf8), file: "h.json", baseDirectory: folder.path)
        let items = [Item(index: 0, name: "echo", source: server.url("echo-headers")), Item(index: 1, name: "missing", source: server.url("status/403"))]
        let out = folder.appendingPathComponent("out")
        let run = PresetRun.start(preset, items: .list(items), output: try OutputRoot(out.path), options: RunOptions(eventDetail: .nodes))
        _ = await run.result
        let echoed = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("0.json"))) as? [String: String]
        #expect(echoed?["User-Agent"] == "TestBot/2.0" && echoed?["X-Trace"] == "abc")
        #expect(echoed?["Authorization"] == "Bearer s3cr3t-value")

        unsetenv("WORKBENCH_TEST_TOKEN")
        let (failures, _) = try await download(server, ["samples/Bridge.jpg"], options: #""authorizationEnv": "WORKBENCH_TEST_TOKEN""#)
        #expect(failures["item0"]?.contains("WORKBENCH_TEST_TOKEN") == true && failures["item0"]?.contains("s3cr3t") == false)
    }

    /// A bucket's object in a run its caller handed no S3 client fails, saying what to set;
    /// no process-wide client stands in with settings the preset never gave.
    @Test func anObjectWithoutAClientFailsSayingWhatToSet() async throws {
        let folder = try Fixtures.temporaryDirectory("no-client")
        let json = #"{"version": 1, "graph": [{"op": "download"}, {"op": "write", "path": "{index}.bin"}]}"#
        let preset = try PresetLoader(registry: registry).load(json: Array(json.utf8), file: "net.json", baseDirectory: folder.path)
        let run = PresetRun.start(preset, items: .list([Item(index: 0, name: "photo", source: "s3://photos/in/photo.jpg")]),
                                  output: try OutputRoot(folder.appendingPathComponent("out").path), options: RunOptions(eventDetail: .items))
        var failure: String?
        for await event in run.events {
            if case .itemFinished(let report) = event { failure = report.failure?.message }
        }
        #expect(failure?.contains("s3://photos/in/photo.jpg is in a bucket, and this run was handed no S3 client: set RunOptions.s3") == true,
                "\(failure ?? "nil")")
    }
}
