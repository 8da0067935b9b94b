import Foundation
import WorkbenchCore

/// A downloaded body: in memory, or mapped from a temporary file that `file` keeps open.
struct Downloaded: Sendable {
    let data: Data
    let file: SpooledFile?
    /// The HTTP version of the response: 1 (1.0 or 1.1), 2 or 3.
    var httpVersion = 1
    /// New connections the transfer opened (0 when it used one already open).
    var newConnections = 0
    /// The final response's status (304 answers a conditional request) and validators.
    var status = 200
    var etag: String?
    var lastModified: String?
    /// The final response's headers, names in lowercase (an S3 answer's `x-amz-…` among them).
    var headers: [String: String] = [:]
}

/// How a `Transfer` is made: its limits, and what a request other than a GET sends.
extension Transfer {
    struct Limits: Sendable {
        /// Seconds for the whole transfer, or nil for no limit (the node's timeout, if any).
        var timeout: Double?
        var connectTimeout: Double
        var maxBytes: Int
        var maxRedirects: Int
        /// Abort when slower than `lowSpeedLimit` bytes a second for `lowSpeedTime` seconds.
        var lowSpeedLimit: Int = 1
        var lowSpeedTime: Double = 15
        /// Request headers, "Name: value" (credentials among them are never logged).
        var headers: [String] = []
        /// Bodies larger than this go to a temporary file instead of memory (see `Spool`).
        var memoryLimit: Int = 8 << 20
        /// A PEM file of certificate authorities to trust instead of the system's (a private CA).
        var caFile: String?
    }

    /// What a request other than a plain GET sends.
    struct Outgoing: Sendable {
        var method = "GET"
        /// The request body (PUT, POST); libcurl reads it in place.
        var body: Data?
        /// Answers of 300 and above come back as responses, unfollowed (with their bodies: S3
        /// explains its refusals there), instead of as `DownloadError.http`.
        var answersAnyStatus = false
    }
}
