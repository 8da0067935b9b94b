import Foundation

/// HTTP/1.1 over a plain socket to 127.0.0.1, with any Host header: what a browser (or a web
/// page trying DNS rebinding) would send, and nothing of the code under test.
public enum RawHTTP {
    public struct Response {
        public let status: Int
        public let headers: String
        public let body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends one request and reads until the server closes, or until `limit` bytes of body came
    /// (for event streams), or `timeout` seconds passed.
    public static func send(_ method: String = "GET", port: Int, path: String, host: String? = nil, body: String? = nil,
                            limit: Int = Int.max, timeout: Double = 20) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        defer { close(fd) }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("cannot connect to 127.0.0.1:\(port)") }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)" } else { request += "\r\n" }
        let bytes = Array(request.utf8)
        guard Glibc.send(fd, bytes, bytes.count, 0) == bytes.count else { throw TestFailure("send() failed") }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            response.append(contentsOf: buffer[0..<n])
            if let split = response.range(of: Data("\r\n\r\n".utf8)), response.count - split.upperBound >= limit { break }
        }
        guard let split = response.range(of: Data("\r\n\r\n".utf8)) else { throw TestFailure("no response from 127.0.0.1:\(port)\(path)") }
        let head = String(decoding: response[..<split.lowerBound], as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var body = Data(response[split.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = dechunked(body) }
        return Response(status: status, headers: head, body: body)
    }

    private static func dechunked(_ data: Data) -> Data {
        var out = Data(), rest = data[...]
        while let line = rest.range(of: Data("\r\n".utf8)) {
            guard let size = Int(String(decoding: rest[..<line.lowerBound], as: UTF8.self), radix: 16), size > 0 else { break }
            let start = line.upperBound, end = rest.index(start, offsetBy: min(size, rest.distance(from: start, to: rest.endIndex)))
            out.append(rest[start..<end])
            rest = rest[end...].dropFirst(2)
        }
        return out
    }
}
