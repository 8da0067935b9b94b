import Foundation

/// The misbehaving HTTP server of `test_server.py`, on 127.0.0.1 and a free port, for one test.
public final class TestServer {
    public let port: Int
    private let process: Process
    private let input: Pipe

    /// Starts the server; it serves `samplesDirectory` under `/samples/`.
    public init(samplesDirectory: URL = Fixtures.samples) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixtures.supportFile("test_server.py").path, samplesDirectory.path]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw TestFailure("the test server did not report its port")
        }
        self.port = port
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// How many requests each path received.
    public func requestCounts() throws -> [String: Int] {
        let data = try Data(contentsOf: URL(string: url("stats"))!) // safe: a literal URL shape
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Int] ?? [:]
        return object.filter { $0.key != "/stats" }
    }
}

/// A test set-up problem, as opposed to a failed expectation.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
