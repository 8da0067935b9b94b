import Foundation
import Hummingbird

/// `GET /`: the page itself, with the session's token in it.
struct PageRoute: LiveRoute {
    static let method = HTTPRequest.Method.get, path: RouterPath = "/"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: Page.html(token: page.token))))
    }
}

/// `GET /state`: every item's state now.
struct StateRoute: LiveRoute {
    static let method = HTTPRequest.Method.get, path: RouterPath = "/state"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        LiveRoutes.json(page.board.snapshot)
    }
}

/// `POST /viewport`: the items the page shows and those near them, which run first.
struct ViewportRoute: LiveRoute {
    static let method = HTTPRequest.Method.post, path: RouterPath = "/viewport"

    struct Viewport: Decodable {
        let visible: [Int]
        let near: [Int]?
    }

    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        // A body that is not a viewport is the page's mistake: answered 400 with the expected shape.
        guard let viewport = try? JSONDecoder().decode(Viewport.self, from: Data(buffer: body)) else {
            return LiveRoutes.refusal(.badRequest, "Expected {\"visible\": [indices], \"near\": [indices]}.")
        }
        await page.session.setViewport(visible: viewport.visible, near: viewport.near ?? [])
        return Response(status: .noContent)
    }
}

/// `GET /events`: the board's changes as server-sent events, until the page goes away.
struct EventsRoute: LiveRoute {
    static let method = HTTPRequest.Method.get, path: RouterPath = "/events"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        let board = page.board, session = page.session
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: .init { writer in
            let (id, stream) = board.listen()
            do {
                for await message in stream { try await writer.write(ByteBuffer(string: message)) }
            } catch {
                // The page went away.
            }
            board.streams.stopListening(id)
            await session.listenerLeft()
            // The page closed the stream already: there is nothing left to finish.
            try? await writer.finish(nil)
        })
    }
}
