import Foundation
import Hummingbird

/// `GET /preview/input/:index`: a screen-size JPEG of an item's input.
struct InputPreviewRoute: LiveRoute {
    static let method = HTTPRequest.Method.get, path: RouterPath = "/preview/input/:index"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        guard let index = context.parameters.get("index", as: Int.self), let file = await page.session.inputFile(index) else {
            return LiveRoutes.refusal(.notFound, "No such item, or its input is not a local file.")
        }
        return await LiveRoutes.jpeg(page.previews.jpeg(ofFile: file))
    }
}

/// `GET /preview/draft/:index`: an item's preview with the unsaved values.
struct DraftPreviewRoute: LiveRoute {
    static let method = HTTPRequest.Method.get, path: RouterPath = "/preview/draft/:index"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        guard let index = context.parameters.get("index", as: Int.self), let file = await page.session.previews.file(index),
              let data = FileManager.default.contents(atPath: file) else {
            return LiveRoutes.refusal(.notFound, "No preview of that item yet.")
        }
        return LiveRoutes.file(data, named: file)
    }
}

/// `GET /preview/output/…`: a screen-size JPEG of an output file.
struct OutputPreviewRoute: LiveRoute {
    static let method = HTTPRequest.Method.get, path: RouterPath = "/preview/output/**"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        guard let file = await OutputFileRoute.outputFile(request.uri.path, prefix: "/preview/output/", session: page.session) else {
            return LiveRoutes.refusal(.notFound, "Only files under the output folder are served.")
        }
        return await LiveRoutes.jpeg(page.previews.jpeg(ofFile: file))
    }
}

/// `GET /file/output/…`: an output file as written.
struct OutputFileRoute: LiveRoute {
    static let method = HTTPRequest.Method.get, path: RouterPath = "/file/output/**"
    static func respond(to request: Request, _ context: BasicRequestContext, page: LivePage) async throws -> Response {
        guard let file = await outputFile(request.uri.path, prefix: "/file/output/", session: page.session),
              let data = FileManager.default.contents(atPath: file) else {
            return LiveRoutes.refusal(.notFound, "Only files under the output folder are served.")
        }
        return LiveRoutes.file(data, named: file)
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
}
