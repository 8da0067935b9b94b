import WorkbenchCore

/// Why a download failed. Each case names the URL.
public enum DownloadError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an HTTP error status.
    case http(status: Int, url: String)
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

    public var description: String {
        switch self {
        case .http(let status, let url):
            return "\(url) answered HTTP \(status)\(Self.reason(status)); check the URL."
        case .tooLarge(let url, let limit):
            return "\(url) is larger than \(limit) bytes; raise the download node's \"maxBytes\" to allow it."
        case .timedOut(let url, let seconds):
            return "\(url) did not answer in time (\(Self.format(seconds)) s); raise the download node's \"timeout\" (or \"connectTimeout\") or check the server."
        case .unsupportedScheme(let url):
            return "\"\(url)\" is not an http or https URL; only those are downloaded (redirects to other schemes are refused)."
        case .transport(let url, let code, let message):
            return "\(url) could not be fetched: \(message) (libcurl error \(code))."
        case .cancelled(let url):
            return "The download of \(url) was cancelled."
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
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}

extension DownloadError: RetryableError {
    /// Network failures, timeouts, HTTP 5xx and 429 may pass on a second try; other answers will not.
    public var isRetryable: Bool {
        switch self {
        case .http(let status, _): return status >= 500 || status == 429
        case .transport, .timedOut: return true
        case .tooLarge, .unsupportedScheme, .cancelled: return false
        }
    }

    /// The server's Retry-After is not read yet (the downloads issue adds it).
    public var retryAfter: Double? { nil }
}
