/// A failure a service's own client (S3's, in the S3 folder) finds and describes, carried by
/// `DownloadError.service` so that the transport layer needs none of that service's words.
public protocol ServiceFailure: Error, Sendable, CustomStringConvertible {
    /// Whether a second try may pass (the server busy or failing, bytes damaged in transit).
    var isRetryable: Bool { get }
    /// How long the server asked to be left alone, when it said.
    var retryAfter: Double? { get }
}
