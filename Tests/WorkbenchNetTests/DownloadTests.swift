import Foundation
import Synchronization
import Logging
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchNet

/// Real libcurl against the real test server on 127.0.0.1.
@Suite struct DownloadTests {
    private let limits = Transfer.Limits(timeout: 10, connectTimeout: 5, maxBytes: 8 << 20, maxRedirects: 5)

    private func expectDownloadError(_ url: String, limits: Transfer.Limits? = nil,
                                     _ matches: (DownloadError) -> Bool) {
        #expect {
            _ = try Transfer.get(url, limits: limits ?? self.limits, cancellation: CancellationToken())
        } throws: { error in
            guard let error = error as? DownloadError else { return false }
            return matches(error)
        }
    }

    @Test func downloadsTheExactBytes() throws {
        let server = try TestServer()
        let data = try Transfer.get(server.url("samples/Bridge.jpg"), limits: limits, cancellation: CancellationToken())
        #expect(data == (try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg"))))
        #expect(try server.requestCounts() == ["/samples/Bridge.jpg": 1])
    }

    @Test func httpErrorsNameTheStatusAndURL() throws {
        let server = try TestServer()
        let url = server.url("status/404")
        expectDownloadError(url) { error in
            guard case .http(404, url, _) = error else { return false }
            return error.description == "\(url) answered HTTP 404 Not Found; check the URL."
        }
        expectDownloadError(server.url("status/503")) { if case .http(503, _, _) = $0 { true } else { false } }
    }

    @Test func cutTransferIsATransportError() throws {
        let server = try TestServer()
        expectDownloadError(server.url("truncated/Bridge.jpg")) { error in
            guard case .transport(_, 18, let message) = error else { return false }
            return message.contains("bytes remaining")
        }
    }

    @Test func byteCapAbortsLargeBodies() throws {
        let server = try TestServer()
        var small = limits
        small.maxBytes = 10_000
        expectDownloadError(server.url("samples/Bridge.jpg"), limits: small) { error in
            guard case .tooLarge(_, 10_000) = error else { return false }
            return error.description.contains("\"maxBytes\"")
        }
    }

    @Test func timeoutCutsASlowServer() throws {
        let server = try TestServer()
        var quick = limits
        quick.timeout = 0.3
        expectDownloadError(server.url("slow/Bridge.jpg?delay=3"), limits: quick) { error in
            guard case .timedOut(_, 0.3) = error else { return false }
            return error.description.contains("raise the download node's \"timeout\"")
        }
    }

    @Test func cancellationAbortsARunningTransfer() throws {
        let server = try TestServer()
        let token = CancellationToken()
        let url = server.url("slow/Bridge.jpg?delay=5")
        // Cancelled from another thread while this one waits in the transfer, so a busy test
        // pool cannot delay either side.
        let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
            cancelledAt.withLock { $0 = .now }
            token.cancel()
        }
        let result: Result<Data, DownloadError>
        do throws(DownloadError) { result = .success(try Transfer.get(url, limits: limits, cancellation: token)) } catch { result = .failure(error) }
        let latency = ContinuousClock.now - (try #require(cancelledAt.withLock { $0 }))
        // The server would answer after 5 s; the download loop drops the transfer when woken.
        #expect(latency < .seconds(2), "cancel → returned took \(latency)")
        guard case .failure(.cancelled(url)) = result else { Issue.record("expected cancellation, got \(result)"); return }
    }

    @Test func transfersShareOneLoopAndReuseConnections() throws {
        let server = try TestServer()
        // One after another: the multi handle keeps the connection open for the next.
        for _ in 0..<6 { _ = try Transfer.get(server.url("samples/Bridge.jpg"), limits: limits, cancellation: CancellationToken()) }
        #expect(try server.connections() == 1)
        // Sixteen at once, each answered after 0.5 s: all run together on the one download thread.
        let done = DispatchSemaphore(value: 0)
        let failures = Mutex(0)
        let started = ContinuousClock.now
        // Distinct URLs (the query differs), so they are not coalesced into one.
        for copy in 0..<16 {
            Transfer.start(server.url("slow/Wine.jpg?delay=0.5&copy=\(copy)"), limits: limits, cancellation: CancellationToken()) { result in
                if case .failure = result { failures.withLock { $0 += 1 } }
                done.signal()
            }
        }
        for _ in 0..<16 { done.wait() }
        #expect(failures.withLock { $0 } == 0)
        #expect(ContinuousClock.now - started < .seconds(3), "16 transfers of 0.5 s (8 s one by one) took \(ContinuousClock.now - started)")
        #expect(try server.requestCounts()["/slow/Wine.jpg"] == 16)
    }

    @Test func oneURLNeededTwiceIsFetchedOnceAndOneCancelDoesNotStopIt() throws {
        let server = try TestServer()
        let url = server.url("slow/Bridge.jpg?delay=0.6")
        let first = CancellationToken(), second = CancellationToken(), third = CancellationToken()
        let results = Mutex<[Int: Result<Downloaded, DownloadError>]>([:])
        let done = DispatchSemaphore(value: 0)
        for (index, token) in [first, second, third].enumerated() {
            Transfer.start(url, limits: limits, cancellation: token) { result in
                results.withLock { $0[index] = result }
                done.signal()
            }
        }
        // One waiter leaves: it is answered at once, and the others still get the picture.
        second.cancel()
        for _ in 0..<3 { done.wait() }
        let all = results.withLock { $0 }
        let expected = try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg"))
        #expect((try? all[0]?.get().data) == expected && (try? all[2]?.get().data) == expected)
        guard case .failure(.cancelled)? = all[1] else { Issue.record("the cancelled waiter got \(String(describing: all[1]))"); return }
        #expect(try server.requestCounts()["/slow/Bridge.jpg"] == 1)
        // Once finished, a new request fetches again.
        _ = try Transfer.get(url, limits: limits, cancellation: CancellationToken())
        #expect(try server.requestCounts()["/slow/Bridge.jpg"] == 2)
    }

    @Test func aTransferStopsWhenEveryWaiterHasLeft() throws {
        let server = try TestServer()
        let url = server.url("slow/Wine.jpg?delay=5")
        let tokens = [CancellationToken(), CancellationToken()]
        let done = DispatchSemaphore(value: 0)
        let cancelled = Mutex(0)
        for token in tokens {
            Transfer.start(url, limits: limits, cancellation: token) { result in
                if case .failure(.cancelled) = result { cancelled.withLock { $0 += 1 } }
                done.signal()
            }
        }
        // Cancelled once the server has the one shared request, not after a fixed 0.2 s.
        let deadline = ContinuousClock.now + .seconds(60)
        while (try? server.requestCounts()["/slow/Wine.jpg"]) ?? 0 < 1 && ContinuousClock.now < deadline { usleep(10_000) }
        for token in tokens { token.cancel() }
        for _ in 0..<2 { done.wait() }
        // Both answered as cancelled: had the cancel not stopped the transfer, the server's answer
        // (after 5 s) would have come back as a success.
        #expect(cancelled.withLock { $0 } == 2)
    }

    @Test func largeBodiesGoThroughATemporaryFileAndLeaveNone() throws {
        let server = try TestServer()
        var spooling = limits
        spooling.memoryLimit = 1 << 20
        let temporary = NSTemporaryDirectory()
        func spooled() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix(Spool.prefix) }
        }
        let before = try spooled()
        let data = try Transfer.get(server.url("big?bytes=3000000&declare=0"), limits: spooling, cancellation: CancellationToken())
        #expect(data.count == 3_000_000 && data.allSatisfy { $0 == 0 })
        // Mapped and unlinked at once; a failed one is removed too.
        #expect(try spooled() == before)
        spooling.maxBytes = 2_000_000
        #expect(throws: DownloadError.self) {
            try Transfer.get(server.url("big?bytes=3000000&declare=0"), limits: spooling, cancellation: CancellationToken())
        }
        #expect(try spooled() == before)
    }

    @Test func httpsServersOfferingHTTP2GetOneMultiplexedConnection() throws {
        let server = try HTTP2Server()
        var tls = limits
        tls.caFile = server.caFile
        let done = DispatchSemaphore(value: 0)
        let bodies = Mutex<[Downloaded]>([])
        let names = ["Bridge.jpg", "Wine.jpg", "sunset.jpg", "seeding.jpg"]
        for name in names {
            Transfer.start(server.url(name), limits: tls, cancellation: CancellationToken()) { result in
                if case .success(let body) = result { bodies.withLock { $0.append(body) } }
                done.signal()
            }
        }
        for _ in names { done.wait() }
        let all = bodies.withLock { $0 }
        #expect(all.count == 4)
        #expect(all.allSatisfy { $0.httpVersion == 2 })
        // Four transfers at once over one connection.
        #expect(all.map(\.newConnections).reduce(0, +) == 1)
        // Without the test's authority the certificate is refused: verification stays on.
        #expect(throws: DownloadError.self) { try Transfer.get(server.url("Bridge.jpg"), limits: limits, cancellation: CancellationToken()) }
    }

    @Test func onlyHTTPAndHTTPSAreFetched() {
        expectDownloadError("ftp://127.0.0.1/x.jpg") { if case .unsupportedScheme = $0 { true } else { false } }
        expectDownloadError("file:///etc/passwd") { if case .unsupportedScheme = $0 { true } else { false } }
    }

    @Test func connectionRefusedIsReported() throws {
        // Bind a port, then close it, so nothing listens there.
        let server = try TestServer()
        let url = "http://127.0.0.1:\(server.port)/x"
        _ = consume server
        expectDownloadError(url) { if case .transport(_, 7, _) = $0 { true } else { false } }
    }

    @Test func downloadStageReadsLocalPathsTheUserGave() throws {
        let path = Fixtures.samples.appendingPathComponent("seeding.jpg").path
        let context = StageContext(item: Item(index: 0, source: path), nodeID: "fetch", cancellation: CancellationToken(),
                                   output: try OutputRoot(try Fixtures.temporaryDirectory("net").path), logger: Logger(label: "t"))
        guard case .bytes(let bytes) = try DownloadStage(url: nil, limits: limits, authorizationEnv: nil).run(StageInputs(), context: context) else {
            Issue.record("no bytes"); return
        }
        #expect(bytes.data == (try Data(contentsOf: URL(fileURLWithPath: path))))
    }
}

/// `download`'s parameters reach its stage through their fields, defaults from the fields.
@Suite struct DownloadParameterTests {
    @Test func givenValuesAndDefaultsReachTheStage() throws {
        let spec = DownloadStage.definition.spec
        #expect(spec.parameters.first { $0.name == "connectTimeout" }?.defaultValue == .double(10))
        #expect(spec.parameters.first { $0.name == "url" }?.defaultValue == nil)
        let values = ParameterValues(["headers": .list([.list([.string("User-Agent"), .string("Bot/1")]), .list([.string("X-A"), .string("b")])]),
                                      "maxRedirects": .int(2), "url": .string("https://example.invalid/a.jpg")])
        let stage = try #require(DownloadStage.definition.makeStage(values, NodeFacts()) as? DownloadStage)
        #expect(stage.limits.headers == ["User-Agent: Bot/1", "X-A: b"])
        #expect(stage.limits.maxRedirects == 2 && stage.limits.connectTimeout == 10 && stage.limits.maxBytes == 64 << 20)
        #expect(stage.url == "https://example.invalid/a.jpg")
    }
}
