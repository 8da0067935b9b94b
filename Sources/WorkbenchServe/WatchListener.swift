import Foundation
import Hummingbird
import Logging
import WorkbenchCore

/// The HTTP side of `workbench watch --listen`: `GET /healthz` (200 while watching, 503 with the
/// reason once the source is lost) and `GET /metrics` (Prometheus' text format), for a service
/// manager's or a cluster's probes; and, watching a bucket, `POST` of its S3 event notifications
/// on any other path, answered 200 once `notified` has dealt with them (400 for a body that is
/// not one, 413 past `bodyLimit`). Anything else is 404.
public struct WatchListener: Sendable {
    public let metrics: WatchMetrics
    public let host: String
    public let port: Int
    /// Deals with a notification (a bucket's watch); nil: POSTs are 404.
    let notified: (@Sendable (S3EventNotification) async -> String?)?

    /// The largest notification body taken (AWS sends one record a POST; a gateway's batch is small).
    public static let bodyLimit = 1 << 20

    /// `notified` answers with nil when done, or with why the notification could not be taken
    /// (answered 502, so the sender tries again).
    public init(metrics: WatchMetrics, host: String, port: Int, notified: (@Sendable (S3EventNotification) async -> String?)? = nil) {
        self.metrics = metrics
        self.host = host
        self.port = port
        self.notified = notified
    }

    private static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: body + "\n")))
    }

    /// `HOST:PORT` (`[::1]:8080` for IPv6, `:8080` for every address); nil when it is not one.
    public static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }

    /// Serves until `stop` is cancelled; `announce` gets the address once it listens.
    public func run(logger: Logger, announce: @escaping @Sendable (String) -> Void, stop: CancellationToken) async throws {
        let router = Router(context: BasicRequestContext.self)
        let metrics = self.metrics
        router.get("/healthz") { _, _ -> Response in
            metrics.problem.map { Self.text(.serviceUnavailable, "not watching: \($0)") } ?? Self.text(.ok, "watching")
        }
        router.get("/metrics") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: .init(byteBuffer: ByteBuffer(string: metrics.prometheusText())))
        }
        if let notified {
            let answer: @Sendable (Request, BasicRequestContext) async -> Response = { request, _ in
                let body: ByteBuffer
                do {
                    body = try await request.body.collect(upTo: Self.bodyLimit)
                } catch {
                    return Self.text(.contentTooLarge, "A notification body is at most \(Self.bodyLimit) bytes.")
                }
                switch S3EventNotification.parse(Data(buffer: body)) {
                case .failure(let refusal):
                    return Self.text(.badRequest, "Expected an S3 event notification (Records[] JSON, or an SNS message): \(refusal).")
                case .success(let notification):
                    if let problem = await notified(notification) { return Self.text(.badGateway, problem) }
                    return Self.text(.ok, "done")
                }
            }
            // Any path: gateways are given a URL, and some add their own path to it.
            router.post("/") { request, context in await answer(request, context) }
            router.post("/**") { request, context in await answer(request, context) }
        }
        var serverLogger = logger
        if logger.logLevel > .debug { serverLogger.logLevel = .critical }
        let host = self.host
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "workbench-watch"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                announce("http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
            },
            logger: serverLogger)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        let stopped = stop.onCancel { server.cancel() }
        defer { stop.removeHandler(stopped) }
        do {
            try await server.value
        } catch is CancellationError {
        }
    }
}
