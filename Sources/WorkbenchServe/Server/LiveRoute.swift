import Foundation
import Hummingbird

/// One route of the live page: its method and path, and how it answers. Each is a small type;
/// `LiveServer` registers `LiveRoutes.all`, every request having passed `AccessCheck` first.
protocol LiveRoute: SendableMetatype {
    static var method: HTTPRequest.Method { get }
    static var path: RouterPath { get }
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response
}

/// What the routes answer from: the session, its board, the input previews, the token.
struct LivePage: Sendable {
    let session: LiveSession
    let token: String
    let previews: Previews
    var board: ItemBoard { session.board }
}

/// Every route of the live page, in one table.
enum LiveRoutes {
    static let all: [any LiveRoute.Type] = [
        PageRoute.self, StateRoute.self, ViewportRoute.self, EventsRoute.self,
        ControlsRoute.self, ParameterRoute.self, DraftRoute.self, SaveRoute.self, RevertRoute.self,
        InputPreviewRoute.self, DraftPreviewRoute.self, OutputPreviewRoute.self, OutputFileRoute.self,
    ]

    static func register(on router: Router<BasicRequestContext>, page: LivePage) {
        for route in all {
            router.on(route.path, method: route.method) { request, context in try await route.respond(to: request, context, page: page) }
        }
    }

    // MARK: - Answers the routes share

    static func json<Value: Encodable>(_ value: Value) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: BoardStreams.json(value))))
    }

    static func jpeg(_ data: Data?) -> Response {
        guard let data else { return refusal(.notFound, "Not an image libvips reads.") }
        return Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func file(_ data: Data, named file: String) -> Response {
        Response(status: .ok, headers: [.contentType: mediaType(of: file), .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        AccessCheck<BasicRequestContext>.refusal(status, message)
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
