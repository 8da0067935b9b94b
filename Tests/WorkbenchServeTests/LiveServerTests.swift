import Foundation
import Hummingbird
import Logging
import Synchronization
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchServe

/// The server in this process on 127.0.0.1, spoken to over a plain socket: every request needs
/// its own name as Host and the session's token, and files are served from the output folder only.
@Suite(.serialized) struct LiveServerTests {
    /// One request on a thread of its own: the socket blocks, and a blocked thread of Swift's
    /// small shared pool (two on this machine) could be the one the server needs to answer.
    private func http(_ method: String = "GET", port: Int, path: String, host: String? = nil, body: String? = nil) async throws -> RawHTTP.Response {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try RawHTTP.send(method, port: port, path: path, host: host, body: body) })
            }
        }
    }

    /// Runs `body` against a live server over `LiveSessionTests`' session; stops it after.
    private func withServer(_ body: (_ port: Int, _ token: String, _ folder: URL) async throws -> Void) async throws {
        let (session, folder, _) = try LiveSessionTests.session()
        try await session.start()
        let token = String(repeating: "ab", count: 32)
        let server = LiveServer(session: session, port: 0, token: token)
        let stop = CancellationToken()
        let announced = Mutex<String?>(nil)
        let serving = Task(executorPreference: ServerThread.shared) { try await server.run(logger: Logger(label: "test"), announce: { url in announced.withLock { $0 = url } }, stop: stop) }
        let deadline = Date().addingTimeInterval(30)
        while announced.withLock({ $0 }) == nil && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        let url = try #require(announced.withLock { $0 })
        let port = try #require(Int(url.split(separator: ":")[2].prefix { $0.isNumber }))
        do {
            try await body(port, token, folder)
        } catch {
            stop.cancel()
            throw error
        }
        stop.cancel()
        try await serving.value
    }

    @Test func requestsWithoutTheTokenOrWithAnotherHostAreRefused() async throws {
        try await withServer { port, token, _ in
            #expect(try await http(port: port, path: "/?token=\(token)").status == 200)
            #expect(try await http(port: port, path: "/?token=\(token)", host: "localhost:\(port)").status == 200)
            // A name rebound to 127.0.0.1 by a web page, this server's name on another port, no Host.
            for host in ["attacker.example:\(port)", "127.0.0.1:\(port + 1)", "127.0.0.1"] {
                let refused = try await http(port: port, path: "/state?token=\(token)", host: host)
                #expect(refused.status == 403 && refused.text.contains("answers only to the address it printed"), "\(host)")
            }
            for path in ["/state", "/state?token=", "/state?token=" + String(repeating: "ab", count: 31) + "ac", "/state?token=\(token)x"] {
                let refused = try await http(port: port, path: path)
                #expect(refused.status == 403 && refused.text.contains("token"), "\(path)")
            }
            let posted = try await http("POST", port: port, path: "/parameter", body: #"{"node": "tone", "key": "intensity", "value": "0.5"}"#)
            #expect(posted.status == 403)
        }
    }

    @Test func onlyRegularFilesBelowTheOutputFolderAreServed() async throws {
        try await withServer { port, token, folder in
            let out = folder.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try Data("made".utf8).write(to: out.appendingPathComponent("made.json"))
            try Data("hidden".utf8).write(to: out.appendingPathComponent(".hidden"))
            try Data("secret".utf8).write(to: folder.appendingPathComponent("secret.json"))
            try FileManager.default.createSymbolicLink(atPath: out.appendingPathComponent("link.json").path,
                                                       withDestinationPath: folder.appendingPathComponent("secret.json").path)
            let served = try await http(port: port, path: "/file/output/made.json?token=\(token)")
            #expect(served.status == 200 && served.text == "made" && served.headers.contains("application/json"))
            for path in ["../secret.json", "%2E%2E/secret.json", ".hidden", "link.json", "", "nothing.json", "%2Fetc%2Fpasswd"] {
                let refused = try await http(port: port, path: "/file/output/\(path)?token=\(token)")
                #expect(refused.status == 404 && !refused.text.contains("secret"), "\(path): \(refused.status)")
            }
        }
    }

    @Test func badBodiesAreRefusedSayingWhatWasExpected() async throws {
        try await withServer { port, token, _ in
            let viewport = try await http("POST", port: port, path: "/viewport?token=\(token)", body: "[1, 2]")
            #expect(viewport.status == 400 && viewport.text.contains("visible"))
            let parameter = try await http("POST", port: port, path: "/parameter?token=\(token)", body: #"{"node": "tone"}"#)
            #expect(parameter.status == 400 && parameter.text.contains("\"key\""))
            let refused = try await http("POST", port: port, path: "/parameter?token=\(token)",
                                           body: #"{"node": "tone", "key": "intensity", "value": "7"}"#)
            #expect(refused.status == 422 && refused.text.contains("intensity"), "\(refused.text)")
        }
    }

    @Test func aNewTokenIsSixtyFourHexDigitsAndComparedWhole() {
        let tokens = (0..<4).map { _ in AccessCheck<BasicRequestContext>.newToken() }
        #expect(Set(tokens).count == 4)
        #expect(tokens.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
        #expect(AccessCheck<BasicRequestContext>.same("abc", "abc"))
        #expect(!AccessCheck<BasicRequestContext>.same("abc", "abd") && !AccessCheck<BasicRequestContext>.same("abc", "abcd"))
    }
}

/// Where the server under test runs its handlers: a queue of its own rather than Swift's shared
/// pool, which other suites running at the same time may hold for seconds with blocking work
/// (a server that cannot answer would fail these tests for a reason of the test run, not its own).
final class ServerThread: TaskExecutor {
    static let shared = ServerThread()
    private let queue = DispatchQueue(label: "live-server-tests")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
