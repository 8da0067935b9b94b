import Foundation
import WorkbenchCore

/// `download`: fetches the item's http(s) URL; a local path given as the item is read directly.
struct DownloadStage: AsyncStage {
    /// The op's parameters, each declared once and bound to its field.
    struct Parameters: OpParameters {
        var url: String?
        var connectTimeout = 10.0
        var maxBytes = 64 << 20
        var maxRedirects = 5
        var lowSpeedLimit = 1
        var lowSpeedTime = 15.0
        var memoryLimit = 8 << 20
        var caFile: String?
        var headers: [(name: String, value: String)] = []
        var authorizationEnv: String?

        static let bindings: [ParameterBinding<Self>] = [
            .string("url", \.url,
                    "Fetch this http, https or s3 URL instead of the item (needed with \"scope\": \"run\"); a relative path reads a file inside the preset's folder."),
            .double("connectTimeout", \.connectTimeout, 0.001...3_600, "Seconds to connect."),
            .int("maxBytes", \.maxBytes, 1...Int(Int32.max), "Abort bodies larger than this many bytes."),
            .int("maxRedirects", \.maxRedirects, 0...50, "Redirects to follow."),
            .int("lowSpeedLimit", \.lowSpeedLimit, 0...Int(Int32.max), "Bytes a second below which a transfer counts as stalled."),
            .double("lowSpeedTime", \.lowSpeedTime, 1...3_600,
                    "Seconds a transfer may stay stalled before it is dropped (and retried, if the node has retries)."),
            .int("memoryLimit", \.memoryLimit, 0...Int(Int32.max),
                 "Bodies larger than this many bytes are written to a temporary file (mapped, and removed at once) instead of held in memory."),
            .string("caFile", \.caFile,
                    "A PEM file of certificate authorities to trust instead of the system's, for servers with a private CA (relative to the preset's folder). Certificates are always verified.", type: .presetFile(builtins: [])),
            .stringMap("headers", \.headers, "Request headers, e.g. {\"User-Agent\": \"MyBot/1.0\"}."),
            .string("authorizationEnv", \.authorizationEnv,
                    "An environment variable holding the Authorization header's value (e.g. \"Bearer …\"); it is never logged."),
        ]
    }

    static let spec = OpSpec(
        name: "download", summary: "Fetches the item's URL over http or https, or its object from an S3 bucket (s3://bucket/key).",
        input: nil, output: .bytes, defaultQueue: "net", execution: .io,
        parameters: Parameters.specs,
        // The node's `timeout` covers the whole transfer; downloads get one unless the preset says otherwise.
        defaultTimeout: 30, sourceParameter: "url",
        check: { values in
            // A preset's own URL is fetched over the network or names a file in its folder.
            guard let url = Parameters(values).url, !isWeb(url) else { return nil }
            return PresetFolder.problem(with: url).map { "url: \($0)" }
        })

    static func isWeb(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("s3://")
    }

    static let definition = OpDefinition(spec) { values in
        let p = Parameters(values)
        return DownloadStage(url: p.url, limits: Transfer.Limits(
            timeout: nil, connectTimeout: p.connectTimeout, maxBytes: p.maxBytes, maxRedirects: p.maxRedirects,
            lowSpeedLimit: p.lowSpeedLimit, lowSpeedTime: p.lowSpeedTime, headers: p.headers.map { "\($0.name): \($0.value)" },
            memoryLimit: p.memoryLimit, caFile: p.caFile),
            authorizationEnv: p.authorizationEnv)
    }

    let url: String?
    let limits: Transfer.Limits
    let authorizationEnv: String?

    /// Hands the transfer to the download loop; no thread waits for it.
    func start(_ inputs: StageInputs, context: StageContext,
               completion: @escaping @Sendable (Result<Payload, any Error>) -> Void) {
        var source = context.item.source
        var limits = self.limits
        limits.timeout = context.timeout
        do throws(WorkbenchError) {
            // Files a preset names stay inside its folder; the item is the user's own.
            if let url { source = Self.isWeb(url) ? url : try PresetFolder.resolve(url, in: context.baseDirectory) }
            limits.caFile = try limits.caFile.map { path throws(WorkbenchError) in try PresetFolder.resolve(path, in: context.baseDirectory) }
        } catch {
            return completion(.failure(error))
        }
        if let variable = authorizationEnv {
            // Read when the node runs and handed to libcurl only: never in a message or log.
            guard let secret = ProcessInfo.processInfo.environment[variable], !secret.isEmpty else {
                return completion(.failure(DownloadError.missingCredential(variable: variable)))
            }
            limits.headers.append("Authorization: \(secret)")
        }
        let lower = source.lowercased()
        if lower.hasPrefix("s3://") {
            guard let location = S3Location(source) else {
                return completion(.failure(DownloadError.unsupportedScheme(url: source)))
            }
            // The caller's client, with the preset's bucket settings: never a process-wide one.
            guard let client = context.service(S3Client.Key.self) else { return completion(.failure(DownloadError.noS3Client(url: source))) }
            return S3Download(client: client, limits: limits).start(location, context: context, ownURL: url != nil, completion: completion)
        }
        // A path the user gave (not one reached by a redirect) is theirs to read.
        if !lower.hasPrefix("http://") && !lower.hasPrefix("https://") && (lower.hasPrefix("file://") || !source.contains("://")) {
            let maxBytes = limits.maxBytes, ownURL = url
            return completion(Result {
                ownURL == nil ? try LocalFile.readInput(of: context, maxBytes: maxBytes) : .bytes(try LocalFile.read(source, maxBytes: maxBytes))
            })
        }
        // On an incremental run, the item's own image is asked for only if it changed, when an
        // unchanged one would leave nothing to do.
        let history = url == nil ? context.inputHistory : nil
        let unchanged = history?.conditionalRequest(for: context.item)
        if let identity = unchanged {
            if let etag = identity.etag { limits.headers.append("If-None-Match: \(etag)") }
            if let lastModified = identity.lastModified { limits.headers.append("If-Modified-Since: \(lastModified)") }
        }
        var progress: (@Sendable (Int, Int?) -> Void)?
        if context.wantsProgress { progress = { @Sendable bytes, expected in context.report(bytes: bytes, of: expected) } }
        let url = source
        Transfer.start(url, limits: limits, cancellation: context.cancellation, progress: progress) { result in
            completion(result.map { downloaded in
                if downloaded.status == 304, let unchanged { return .unreadInput(unchanged) }
                guard history != nil else { return .bytes(Bytes(downloaded.data, origin: url, file: downloaded.file)) }
                let validated = downloaded.etag != nil || downloaded.lastModified != nil
                let identity = InputIdentity(content: validated ? nil : ContentHash.hex(downloaded.data), size: downloaded.data.count,
                                             etag: downloaded.etag, lastModified: downloaded.lastModified)
                context.recordInput(identity)
                return .bytes(Bytes(downloaded.data, origin: url, file: downloaded.file))
            }.mapError { $0 })
        }
    }
}
