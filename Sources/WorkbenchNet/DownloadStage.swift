import WorkbenchCore

/// `download`: fetches the item's http(s) URL; a local path given as the item is read directly.
struct DownloadStage: Stage {
    static let spec = OpSpec(
        name: "download", summary: "Fetches the item's URL over http or https.",
        input: nil, output: .bytes, defaultQueue: "net", execution: .io,
        parameters: [
            ParameterSpec("url", .string, "Fetch this URL instead of the item (needed with \"scope\": \"run\")."),
            ParameterSpec("connectTimeout", .double(0.001...3_600), default: .double(10), "Seconds to connect."),
            ParameterSpec("maxBytes", .int(1...Int(Int32.max)), default: .int(64 << 20),
                          "Abort bodies larger than this many bytes."),
            ParameterSpec("maxRedirects", .int(0...50), default: .int(5), "Redirects to follow."),
        ],
        // The node's `timeout` covers the whole transfer; downloads get one unless the preset says otherwise.
        defaultTimeout: 30, sourceParameter: "url")

    static let definition = OpDefinition(spec) { p in
        DownloadStage(url: p.string("url"), limits: Transfer.Limits(
            timeout: nil, connectTimeout: p.double("connectTimeout") ?? 10,
            maxBytes: p.int("maxBytes") ?? 64 << 20, maxRedirects: p.int("maxRedirects") ?? 5))
    }

    let url: String?
    let limits: Transfer.Limits

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        let source = url.map { context.resolve($0) } ?? context.item.source
        var limits = self.limits
        limits.timeout = context.timeout
        let lower = source.lowercased()
        // A path the user gave (not one reached by a redirect) is theirs to read.
        if !lower.hasPrefix("http://") && !lower.hasPrefix("https://") && (lower.hasPrefix("file://") || !source.contains("://")) {
            return .bytes(try LocalFile.read(source, maxBytes: limits.maxBytes))
        }
        let data = try Transfer.get(source, limits: limits, cancellation: context.cancellation)
        return .bytes(Bytes(data, origin: source))
    }
}

/// The ops this module provides.
public enum NetStages {
    public static let all: [OpDefinition] = [DownloadStage.definition]
}
