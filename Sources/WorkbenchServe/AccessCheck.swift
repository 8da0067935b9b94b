import Foundation
import Hummingbird
import Synchronization

/// Every request must name this server as its Host (so a web page whose name was rebound to
/// 127.0.0.1 cannot reach it) and carry the session's token (so other users of the machine
/// cannot drive it): the token is in the URL `serve` prints and in every request the page makes.
struct AccessCheck<Context: RequestContext>: RouterMiddleware {
    let token: String
    let hosts: HostNames

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard hosts.allows(request.head.authority) else {
            return Self.refusal(.forbidden, "This workbench answers only to the address it printed (Host \(request.head.authority ?? "missing") refused).")
        }
        guard let given = request.uri.queryParameters.get("token"), Self.same(given, token) else {
            return Self.refusal(.forbidden, "Missing or wrong token: open the URL that workbench serve printed.")
        }
        return try await next(request, context)
    }

    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    /// Compares in time independent of where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in x.indices { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    /// 32 random bytes as hex (the system's generator: getrandom).
    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// The names this server answers to, with the port it got (known once it listens).
final class HostNames: Sendable {
    private let names: [String]
    private let port = Mutex(0)

    init(listeningOn host: String) {
        var names = ["127.0.0.1", "localhost", "[::1]"]
        if !names.contains(host) && host != "0.0.0.0" && host != "::" { names.append(host.contains(":") ? "[\(host)]" : host) }
        if host == "0.0.0.0" || host == "::" {
            var buffer = [CChar](repeating: 0, count: 256)
            if gethostname(&buffer, buffer.count) == 0 {
                names.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        self.names = names
    }

    func listening(on port: Int) { self.port.withLock { $0 = port } }

    func allows(_ authority: String?) -> Bool {
        guard let authority else { return false }
        let port = self.port.withLock { $0 }
        return names.contains { authority == "\($0):\(port)" }
    }
}
