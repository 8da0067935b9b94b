import Foundation

/// `nghttpd` (Debian's nghttp2-server) serving the bundled samples over HTTP/2 and TLS on
/// 127.0.0.1, with a certificate made for the test by `openssl`; `caFile` is its authority.
public final class HTTP2Server {
    public let port: Int
    public let caFile: String
    private let process: Process

    public init() throws {
        let folder = try Fixtures.temporaryDirectory("h2")
        let key = folder.appendingPathComponent("key.pem").path, cert = folder.appendingPathComponent("cert.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
                             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw TestFailure("openssl could not make a test certificate") }
        caFile = cert
        guard let nghttpd = ["/usr/sbin/nghttpd", "/usr/bin/nghttpd"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestFailure("the HTTP/2 tests need nghttpd: apt-get install nghttp2-server")
        }
        // A free port: bind port 0, note it, release it, and hand it to nghttpd.
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0 }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        close(probe)
        process = Process()
        process.executableURL = URL(fileURLWithPath: nghttpd)
        process.arguments = ["--htdocs=\(Fixtures.samples.path)", "--address=127.0.0.1", String(port), key, cert]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready when it accepts a connection.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var target = address
            let connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return }
            usleep(20_000)
        }
        throw TestFailure("nghttpd did not start on port \(port)")
    }

    deinit {
        // nghttpd waits for open connections on SIGTERM, and the download loop keeps its HTTP/2
        // connection alive for reuse: stop it outright.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public func url(_ path: String) -> String { "https://127.0.0.1:\(port)/\(path)" }
}
