import Foundation
import WorkbenchCore

/// `download` of an `s3://` item: a signed GetObject — or nothing at all on an incremental rerun
/// when the listing's ETag is the one recorded and the item's files are up to date.
struct S3Download {
    let client: S3Client
    let limits: Transfer.Limits

    func start(_ location: S3Location, context: StageContext, ownURL: Bool,
               completion: @escaping @Sendable (Result<Payload, any Error>) -> Void) {
        let history = ownURL ? nil : context.inputHistory
        let recorded = history?.conditionalRequest(for: context.item)
        if let recorded, let listed = context.item.listed, let etag = listed.etag {
            // The listing already said what the object is now: no request is needed to know.
            if etag == recorded.etag && (recorded.size == nil || recorded.size == listed.size) {
                return completion(.success(.unreadInput(recorded)))
            }
        }
        var request = S3Client.Request(operation: "GetObject", location: location)
        if let etag = recorded?.etag, context.item.listed == nil { request.headers.append(S3Client.Pair("If-None-Match", etag)) }
        var progress: (@Sendable (Int, Int?) -> Void)?
        if context.wantsProgress { progress = { @Sendable bytes, expected in context.report(bytes: bytes, of: expected) } }
        client.send(request, limits: limits, cancellation: context.cancellation, progress: progress) { result in
            completion(result.map { response -> Payload in
                if response.status == 304, let recorded { return .unreadInput(recorded) }
                if history != nil {
                    context.recordInput(InputIdentity(size: response.data.count, etag: response.headers["etag"],
                                                      lastModified: response.headers["last-modified"]))
                }
                return .bytes(Bytes(response.data, origin: location.description, file: response.file))
            }.mapError { $0 })
        }
    }
}
