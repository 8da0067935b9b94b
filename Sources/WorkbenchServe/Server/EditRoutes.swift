import Foundation
import Hummingbird

/// `GET /controls`: the preset's nodes and the controls of their parameters.
struct ControlsRoute: LiveRoute {
    static let method = HTTPRequest.Method.get, path: RouterPath = "/controls"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        let json = await page.session.controls()
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: json)))
    }
}

/// `POST /parameter`: an unsaved value for one parameter of one node.
struct ParameterRoute: LiveRoute {
    static let method = HTTPRequest.Method.post, path: RouterPath = "/parameter"

    /// A control's new value: `value` is JSON text (`0.6`, `true`, `"webp"`, `[1, 2, 3]`).
    struct ParameterChange: Decodable {
        let node: String
        let key: String
        let value: String
    }

    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        // A body that is not a parameter change is answered 400 below.
        guard let change = try? JSONDecoder().decode(ParameterChange.self, from: Data(buffer: body)),
              let value = try? JSONSerialization.jsonObject(with: Data(change.value.utf8), options: [.fragmentsAllowed]),
              !(value is [String: Any]) else {
            return LiveRoutes.refusal(.badRequest, "Expected {\"node\": id, \"key\": name, \"value\": JSON text}.")
        }
        if let problem = await page.session.setParameter(node: change.node, key: change.key, json: change.value) {
            return LiveRoutes.refusal(.unprocessableContent, problem)
        }
        return Response(status: .noContent)
    }
}

/// `GET /draft`: how far the unsaved values' previews have got.
struct DraftRoute: LiveRoute {
    static let method = HTTPRequest.Method.get, path: RouterPath = "/draft"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        LiveRoutes.json(await page.session.draftCounts())
    }
}

/// `POST /save`: the unsaved values written into the preset file.
struct SaveRoute: LiveRoute {
    static let method = HTTPRequest.Method.post, path: RouterPath = "/save"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        if let problem = await page.session.save() { return LiveRoutes.refusal(.conflict, problem) }
        return Response(status: .noContent)
    }
}

/// `POST /revert`: the unsaved values dropped.
struct RevertRoute: LiveRoute {
    static let method = HTTPRequest.Method.post, path: RouterPath = "/revert"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        await page.session.revert()
        return Response(status: .noContent)
    }
}
