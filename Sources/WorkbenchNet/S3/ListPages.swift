import Foundation
import Synchronization
import WorkbenchCore

/// ListObjectsV2 pages under one prefix, fetched with retries (`S3Client.send`).
struct ListPages: Sendable {
    struct Object: Sendable {
        let key: String
        let etag: String?
        let size: Int?
        let lastModified: String?
    }

    struct Page: Sendable {
        let keys: [Object]
        let truncated: Bool
        let next: String?
    }

    /// A page asked for and not yet waited for: the next page is fetched while the caller
    /// works through this one.
    typealias Pending = PendingAnswer<Result<Page, DownloadError>>

    let client: S3Client
    let bucket: String
    let prefix: String
    static let limits = Transfer.Limits(timeout: 120, connectTimeout: 10, maxBytes: 64 << 20, maxRedirects: 0)

    func request(after token: String?) -> S3Client.Request {
        var query = [S3Client.Pair("list-type", "2"), S3Client.Pair("max-keys", "1000")]
        if !prefix.isEmpty { query.append(S3Client.Pair("prefix", prefix)) }
        if let token { query.append(S3Client.Pair("continuation-token", token)) }
        return S3Client.Request(operation: "ListObjectsV2", location: S3Location(bucket: bucket, key: ""), query: query)
    }

    func start(after token: String?) -> Pending {
        let pending = Pending()
        client.send(request(after: token), limits: Self.limits, cancellation: CancellationToken()) { result in
            pending.deliver(result.map { Self.parse($0.data) })
        }
        return pending
    }

    func fetch(after token: String?) throws(DownloadError) -> Page {
        try start(after: token).wait().get()
    }

    static func parse(_ data: Data) -> Page {
        let xml = S3XML(String(decoding: data, as: UTF8.self))
        let keys = xml.elements("Contents").compactMap { entry -> Object? in
            guard let key = entry.value("Key") else { return nil }
            return Object(key: key, etag: entry.value("ETag"), size: entry.value("Size").flatMap { Int($0) },
                          lastModified: entry.value("LastModified"))
        }
        let truncated = xml.value("IsTruncated") == "true"
        return Page(keys: keys, truncated: truncated, next: xml.value("NextContinuationToken"))
    }
}
