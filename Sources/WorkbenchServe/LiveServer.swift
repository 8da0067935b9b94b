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
        let session = self.session, token = self.token, board = session.board, previews = Previews()

        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(string: Page.html(token: token))))
        }
        router.get("/state") { _, _ in
            Self.json(board.snapshot)
        }
        router.post("/viewport") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            // A body that is not a viewport is the page's mistake: answered 400 with the expected shape.
            guard let viewport = try? JSONDecoder().decode(Viewport.self, from: Data(buffer: body)) else {
                return AccessCheck<BasicRequestContext>.refusal(.badRequest, "Expected {\"visible\": [indices], \"near\": [indices]}.")
            }
            await session.setViewport(visible: viewport.visible, near: viewport.near ?? [])
            return Response(status: .noContent)
        }
        router.get("/events") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: .init { writer in
                let (id, stream) = board.listen()
                do {
                    for await message in stream { try await writer.write(ByteBuffer(string: message)) }
                } catch {
                    // The page went away.
                }
                board.stopListening(id)
                await session.listenerLeft()
                // The page closed the stream already: there is nothing left to finish.
                try? await writer.finish(nil)
            })
        }
        router.get("/preview/input/:index") { _, context -> Response in
            guard let index = context.parameters.get("index", as: Int.self), let file = await session.inputFile(index) else {
                return AccessCheck<BasicRequestContext>.refusal(.notFound, "No such item, or its input is not a local file.")
            }
            return await Self.jpeg(previews.jpeg(ofFile: file))
        }
        router.get("/controls") { _, _ -> Response in
            let json = await session.controls()
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        router.post("/parameter") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            // A body that is not a parameter change is answered 400 below.
            guard let change = try? JSONDecoder().decode(ParameterChange.self, from: Data(buffer: body)),
                  let value = try? JSONSerialization.jsonObject(with: Data(change.value.utf8), options: [.fragmentsAllowed]),
                  !(value is [String: Any]) else {
                return AccessCheck<BasicRequestContext>.refusal(.badRequest, "Expected {\"node\": id, \"key\": name, \"value\": JSON text}.")
            }
            if let problem = await session.setParameter(node: change.node, key: change.key, json: change.value) {
                return AccessCheck<BasicRequestContext>.refusal(.unprocessableContent, problem)
            }
            return Response(status: .noContent)
        }
        router.get("/draft") { _, _ -> Response in
            Self.json(await session.draftCounts())
        }
        router.post("/save") { _, _ -> Response in
            if let problem = await session.save() { return AccessCheck<BasicRequestContext>.refusal(.conflict, problem) }
            return Response(status: .noContent)
        }
        router.post("/revert") { _, _ -> Response in
            await session.revert()
            return Response(status: .noContent)
        }
        router.get("/preview/draft/:index") { _, context -> Response in
            guard let index = context.parameters.get("index", as: Int.self), let file = await session.previews.file(index),
                  let data = FileManager.default.contents(atPath: file) else {
                return AccessCheck<BasicRequestContext>.refusal(.notFound, "No preview of that item yet.")
            }
            return Response(status: .ok, headers: [.contentType: Self.mediaType(of: file), .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        router.get("/preview/output/**") { request, _ -> Response in
            guard let file = await Self.outputFile(request.uri.path, prefix: "/preview/output/", session: session) else {
                return AccessCheck<BasicRequestContext>.refusal(.notFound, "Only files under the output folder are served.")
            }
            return await Self.jpeg(previews.jpeg(ofFile: file))
        }
        router.get("/file/output/**") { request, _ -> Response in
            guard let file = await Self.outputFile(request.uri.path, prefix: "/file/output/", session: session),
                  let data = FileManager.default.contents(atPath: file) else {
                return AccessCheck<BasicRequestContext>.refusal(.notFound, "Only files under the output folder are served.")
            }
            return Response(status: .ok, headers: [.contentType: Self.mediaType(of: file), .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }

        // Stopping cancels the server, which Hummingbird logs as errors; only --verbose shows them.
        var serverLogger = logger
        if logger.logLevel > .debug { serverLogger.logLevel = .critical }
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
        let ticker = Task.detached {
            var beats = 0
            while !Task.isCancelled {
                // Cancelled: the loop's condition ends it.
                try? await Task.sleep(nanoseconds: 100_000_000)
                await session.tick()
                beats += 1
                if beats % 10 == 0 { board.heartbeat() }
            }
        }
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        let stopped = stop.onCancel {
            ticker.cancel()
            board.endStreams()
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

    /// A control's new value: `value` is JSON text (`0.6`, `true`, `"webp"`, `[1, 2, 3]`).
    struct ParameterChange: Decodable {
        let node: String
        let key: String
        let value: String
    }

    struct Viewport: Decodable {
        let visible: [Int]
        let near: [Int]?
    }

    static func json<Value: Encodable>(_ value: Value) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our own Encodable state: it always encodes ("null" only if a type ever could not).
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func jpeg(_ data: Data?) -> Response {
        guard let data else { return AccessCheck<BasicRequestContext>.refusal(.notFound, "Not an image libvips reads.") }
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The file a URL path names under the output root, or nil if it leads anywhere else
    /// (`..`, an absolute path, a symbolic link out, a hidden file) or is not a regular file.
    static func outputFile(_ path: String, prefix: String, session: LiveSession) async -> String? {
        guard let root = await session.outputRoot, path.hasPrefix(prefix) else { return nil }
        guard let relative = String(path.dropFirst(prefix.count)).removingPercentEncoding, !relative.isEmpty,
              !relative.hasPrefix("/"), !relative.split(separator: "/").contains(where: { $0 == ".." || $0.hasPrefix(".") }) else { return nil }
        let candidate = URL(fileURLWithPath: root).appendingPathComponent(relative).standardizedFileURL.path
        guard candidate.hasPrefix(root + "/"), let resolved = realpath(candidate, nil) else { return nil }
        defer { free(resolved) }
        let real = String(cString: resolved)
        var info = stat()
        guard real.hasPrefix(root + "/"), stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return real
    }

    static func mediaType(of file: String) -> String {
        switch (file as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "webp": return "image/webp"
        case "gif": return "image/gif"
        case "avif": return "image/avif"
        case "tif", "tiff": return "image/tiff"
        case "json": return "application/json"
        default: return "application/octet-stream"
        }
    }
}
