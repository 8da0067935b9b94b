import WorkbenchCore

/// Why a download failed. Each case names the URL.
public enum DownloadError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an HTTP error status (and, for 429 and 503, maybe how long to wait).
    case http(status: Int, url: String, retryAfter: Double?)
    /// The body is larger than the node's `maxBytes`.
    case tooLarge(url: String, limit: Int)
    /// The transfer took longer than the node's `timeout`.
    case timedOut(url: String, seconds: Double)
    /// Only http and https are fetched; local paths are read directly.
    case unsupportedScheme(url: String)
    /// DNS, connection, TLS or protocol failure, with libcurl's code and message.
    case transport(url: String, code: Int, message: String)
    /// The run was cancelled while the transfer was under way.
    case cancelled(url: String)
    /// The transfer became slower than the node's `lowSpeedLimit` for `lowSpeedTime` seconds.
    case tooSlow(url: String, bytesPerSecond: Int, seconds: Double)
    /// A redirect pointed to a scheme other than http or https, or went on for too long.
    case badRedirect(url: String, message: String)
    /// The environment variable that should hold the Authorization header is not set.
    case missingCredential(variable: String)
    /// An `s3://` URL in a run its caller handed no S3 client (`RunOptions.s3`).
    case noS3Client(url: String)
    /// A failure the layer above the transfer found (a bucket's refusal, its credentials, its
    /// checksums), in that layer's own words: the transport carries it without knowing them.
    case service(any ServiceFailure)

    public var description: String {
        switch self {
        case .http(let status, let url, _):
            return "\(url) answered HTTP \(status)\(Self.reason(status)); check the URL."
        case .tooLarge(let url, let limit):
            return "\(url) is larger than \(limit) bytes; raise the download node's \"maxBytes\" to allow it."
        case .timedOut(let url, let seconds):
            return "\(url) did not answer in time (\(Self.format(seconds)) s); raise the download node's \"timeout\" (or \"connectTimeout\") or check the server."
        case .unsupportedScheme(let url):
            return "\"\(url)\" is not an http or https URL; only those are downloaded (redirects to other schemes are refused)."
        case .transport(let url, let code, let message):
            return "\(url) could not be fetched: \(message) (libcurl error \(code))" + Self.hint(code: code, message: message) + "."
        case .cancelled(let url):
            return "The download of \(url) was cancelled."
        case .tooSlow(let url, let rate, let seconds):
            return "\(url) sent less than \(rate) bytes a second for \(Self.format(seconds)) s; lower the download node's \"lowSpeedLimit\" or raise \"lowSpeedTime\" for slow servers."
        case .badRedirect(let url, let message):
            return "\(url) redirected where it may not be followed: \(message)."
        case .missingCredential(let variable):
            return "The environment variable \(variable) (the download node's \"authorizationEnv\") is not set; export it with the Authorization header's value."
        case .noS3Client(let url):
            return "\(url) is in a bucket, and this run was handed no S3 client: set RunOptions.s3 (S3Client(settings:) or S3Client(bucket:)) before starting it."
        case .service(let failure):
            return failure.description
        }
    }

    /// What the commonest libcurl failures mean for the person who typed the URL (services
    /// above the transport add their own, `S3Error.unreachable`).
    static func hint(code: Int, message: String) -> String {
        switch code {
        case 6: return "; the host name is not known: check its spelling"
        case 7: return "; nothing answered there: check that the server runs and the port is right"
        case 35 where message.contains("wrong version number"):
            return "; the server did not answer in TLS: it probably speaks plain http on that port, so use http:// or the server's https port"
        case 35: return "; the TLS handshake failed: the server's TLS settings and ours do not meet"
        case 60: return "; the server's certificate is not trusted here: check the host name, or install its authority's certificate"
        default: return ""
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 400: return " Bad Request"
        case 401: return " Unauthorized"
        case 403: return " Forbidden"
        case 404: return " Not Found"
        case 410: return " Gone"
        case 429: return " Too Many Requests"
        case 500: return " Internal Server Error"
        case 502: return " Bad Gateway"
        case 503: return " Service Unavailable"
        case 504: return " Gateway Timeout"
        default: return ""
        }
    }

    private static func format(_ seconds: Double) -> String {
        Int(exactly: seconds).map(String.init) ?? String(seconds)
    }
}

extension DownloadError: RetryableError {
    /// Network failures, timeouts, HTTP 5xx and 429 may pass on a second try; other answers will not.
    public var isRetryable: Bool {
        switch self {
        case .http(let status, _, _): return status >= 500 || status == 429
        case .transport, .timedOut, .tooSlow: return true
        case .service(let failure): return failure.isRetryable
        case .tooLarge, .unsupportedScheme, .cancelled, .badRedirect, .missingCredential, .noS3Client: return false
        }
    }

    /// The server's Retry-After (seconds or an HTTP date), when it sent one.
    public var retryAfter: Double? {
        switch self {
        case .http(_, _, let seconds): return seconds
        case .service(let failure): return failure.retryAfter
        default: return nil
        }
    }
}
