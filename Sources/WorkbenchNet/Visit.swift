import WorkbenchCore

/// One GET whose answer is only its status, through the same libcurl loop as every download:
/// a watch confirming an SNS subscription by visiting the URL the topic sent once. Awaited
/// without holding a thread (the caller is an HTTP handler on Swift concurrency's threads).
public enum Visit {
    /// The HTTP status `url` answered with, or why it could not be reached.
    public static func status(of url: String, timeout: Double = 20) async -> Result<Int, DownloadError> {
        let answer = PendingAnswer<Result<Downloaded, DownloadError>>()
        let limits = Transfer.Limits(timeout: timeout, connectTimeout: min(timeout, 10), maxBytes: 1 << 20, maxRedirects: 3)
        Transfer.start(url, limits: limits, outgoing: Transfer.Outgoing(answersAnyStatus: true), cancellation: CancellationToken()) {
            answer.deliver($0)
        }
        return await answer.value.map(\.status)
    }
}
