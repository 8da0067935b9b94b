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
        try stats().filter { $0.key != "/stats" && $0.key != "connections" }
    }

    /// Connections the server accepted, not counting those `requestCounts` and this call opened.
    public func connections() throws -> Int {
        let all = try stats()
        return (all["connections"] ?? 0) - (all["/stats"] ?? 0)
    }

    private func stats() throws -> [String: Int] {
        try JSONSerialization.jsonObject(with: try get("/stats")) as? [String: Int] ?? [:]
    }

    /// A plain HTTP/1.0 GET over a socket; Foundation on Linux has no http loader without
    /// FoundationNetworking, and the code under test must not check itself.
    private func get(_ path: String) throws -> Data {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("cannot connect to the test server") }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else { throw TestFailure("send() failed") }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { throw TestFailure("malformed response") }
        return response[split.upperBound...]
    }
}

/// A test set-up problem, as opposed to a failed expectation.
public struct TestFailure: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
