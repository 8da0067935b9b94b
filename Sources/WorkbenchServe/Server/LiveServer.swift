import Foundation
import Hummingbird
import Logging
import Synchronization
import WorkbenchCore

/// The HTTP side of the live workbench: one page, its event stream, previews and files, on
/// 127.0.0.1 unless told otherwise, every request checked by `AccessCheck`.
public struct LiveServer: Sendable {
    public let session: LiveSession
    public let host: String
    public let port: Int
    let token: String

    /// `token`: nil makes a random one (tests give their own).
    public init(session: LiveSession, host: String = "127.0.0.1", port: Int = 0, token: String? = nil) {
        self.session = session
        self.host = host
        self.port = port
        self.token = token ?? AccessCheck<BasicRequestContext>.newToken()
    }

    /// Serves until `stop` is cancelled; `announce` gets the page's URL once it listens.
    public func run(logger: Logger, announce: @escaping @Sendable (String) -> Void, stop: CancellationToken) async throws {
        let hosts = HostNames(listeningOn: host)
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: AccessCheck(token: token, hosts: hosts))
        LiveRoutes.register(on: router, page: LivePage(session: session, token: token, previews: Previews()))
        // Stopping cancels the server, which Hummingbird logs as errors; only --verbose shows them.
        var serverLogger = logger
        if logger.logLevel > .debug { serverLogger.logLevel = .critical }
        let host = self.host, token = self.token
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "workbench"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                hosts.listening(on: port)
                let shown = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host.contains(":") ? "[\(host)]" : host
                announce("http://\(shown):\(port)/?token=\(token)")
            },
            logger: serverLogger)
        let ticker = Self.tick(session)
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        let board = session.board
        let stopped = stop.onCancel {
            ticker.cancel()
            board.streams.end()
            server.cancel()
        }
        defer { stop.removeHandler(stopped) }
        do {
            try await server.value
        } catch is CancellationError {
        }
        ticker.cancel()
        await session.pageClosed()
        await session.finish()
    }

    /// The session's clock: a tick every 100 ms (feeding the run what the page shows), and the
    /// event stream's heartbeat every second, until cancelled.
    private static func tick(_ session: LiveSession) -> Task<Void, Never> {
        Task.detached {
            var beats = 0
            while !Task.isCancelled {
                // Cancelled: the loop's condition ends it.
                try? await Task.sleep(nanoseconds: 100_000_000)
                await session.tick()
                beats += 1
                if beats % 10 == 0 { session.board.streams.heartbeat() }
            }
        }
    }
}
