import Foundation
import Synchronization
import WorkbenchCore

/// S3's REST calls, signed (`SigV4`) and retried (`S3Retry`), on the Downloader's libcurl loop.
/// One per process and settings; credentials are found once and found again before temporary
/// ones expire.
final class S3Client: Sendable {
    struct Request: Sendable {
        /// S3's name for the call (GetObject, ListObjectsV2, …), for messages.
        var operation: String
        var method = "GET"
        var location: S3Location
        var query: [Pair] = []
        var headers: [Pair] = []
        var body: Data?
    }

    struct Pair: Sendable {
        let name: String
        let value: String
        init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    struct Response: Sendable {
        let status: Int
        let headers: [String: String]
        let data: Data
        let file: SpooledFile?
    }

    let settings: S3Settings
    private let cached = Mutex<S3Credentials?>(nil)

    init(settings: S3Settings) {
        self.settings = settings
    }

    /// The client for this process: the environment's settings, with the preset's over them
    /// (`S3Service.configure`).
    static var shared: S3Client { sharedClient.withLock { $0 } }
    fileprivate static let sharedClient = Mutex(S3Client(settings: S3Settings()))

    /// The credentials to sign with, found now if none are held or they are about to expire.
    func credentials() throws(DownloadError) -> S3Credentials {
        if let held = cached.withLock({ $0 }), !held.isStale { return held }
        let found = try CredentialChain.resolve(settings)
        cached.withLock { $0 = found }
        return found
    }

    static let emptyPayloadHash = SHA256.hex([UInt8]())

    /// The URL and headers of `request`, signed now.
    func signed(_ request: Request) throws(DownloadError) -> (url: String, headers: [String]) {
        let credentials = try credentials()
        let address = settings.address(bucket: request.location.bucket, key: request.location.key)
        let payloadHash = request.body.map { SHA256.hex($0) } ?? Self.emptyPayloadHash
        var own = request.headers.map { ($0.name, $0.value) }
        // Without one, libcurl calls a body a form (application/x-www-form-urlencoded), which some
        // servers then parse as one.
        if request.body != nil && !own.contains(where: { $0.0.lowercased() == "content-type" }) {
            own.append(("Content-Type", "application/octet-stream"))
        }
        let added = SigV4(credentials: credentials, region: settings.region)
            .headers(method: request.method, host: address.host, path: address.path, query: request.query.map { ($0.name, $0.value) },
                     headers: own, payloadHash: payloadHash, date: Date())
        let query = SigV4.canonicalQuery(request.query.map { ($0.name, $0.value) })
        return (address.url + (query.isEmpty ? "" : "?" + query), (own + added).map { "\($0.0): \($0.1)" })
    }

    /// Sends `request` once; an answer of 300 or more becomes `DownloadError.s3` with S3's code.
    func attempt(_ request: Request, limits: Transfer.Limits, cancellation: CancellationToken,
                 progress: (@Sendable (Int, Int?) -> Void)? = nil,
                 completion: @escaping @Sendable (Result<Response, DownloadError>) -> Void) {
        let url: String, headers: [String]
        do throws(DownloadError) { (url, headers) = try signed(request) } catch { return completion(.failure(error)) }
        var limits = limits
        limits.headers += headers
        let outgoing = Transfer.Outgoing(method: request.method, body: request.body, answersAnyStatus: true)
        let source = cached.withLock { $0?.source } ?? "nowhere"
        Transfer.start(url, limits: limits, outgoing: outgoing, cancellation: cancellation, progress: progress) { result in
            completion(result.mapError { Self.named($0, request) }.flatMap { answer in
                if answer.status < 300 || answer.status == 304 {
                    return .success(Response(status: answer.status, headers: answer.headers, data: answer.data, file: answer.file))
                }
                return .failure(Self.refusal(answer, request, credentials: source))
            })
        }
    }

    /// Sends `request`, again after failures worth retrying (`S3Retry`); `completion` runs once.
    func send(_ request: Request, limits: Transfer.Limits, cancellation: CancellationToken, retry: S3Retry = S3Retry(),
              progress: (@Sendable (Int, Int?) -> Void)? = nil,
              completion: @escaping @Sendable (Result<Response, DownloadError>) -> Void) {
        attempt(request, limits: limits, cancellation: cancellation, progress: progress) { [self] result in
            guard case .failure(let error) = result, let delay = retry.delay(after: error), !cancellation.isCancelled else {
                return completion(result)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
                guard !cancellation.isCancelled else { return completion(.failure(.cancelled(url: request.location.description))) }
                send(request, limits: limits, cancellation: cancellation, retry: retry.next(), progress: progress, completion: completion)
            }
        }
    }

    /// `send`, waiting for the answer.
    func perform(_ request: Request, limits: Transfer.Limits, cancellation: CancellationToken = CancellationToken()) throws(DownloadError) -> Response {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Response, DownloadError>?>(nil)
        send(request, limits: limits, cancellation: cancellation) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw .cancelled(url: request.location.description) }
        return try result.get()
    }

    /// Transport failures name the object, not the signed URL (whose query may be long).
    private static func named(_ error: DownloadError, _ request: Request) -> DownloadError {
        switch error {
        case .transport(_, let code, let message): return .transport(url: request.location.description, code: code, message: message)
        case .timedOut(_, let seconds): return .timedOut(url: request.location.description, seconds: seconds)
        case .cancelled: return .cancelled(url: request.location.description)
        case .tooLarge(_, let limit): return .tooLarge(url: request.location.description, limit: limit)
        case .tooSlow(_, let rate, let seconds): return .tooSlow(url: request.location.description, bytesPerSecond: rate, seconds: seconds)
        default: return error
        }
    }

    private static func refusal(_ answer: Downloaded, _ request: Request, credentials: String) -> DownloadError {
        let xml = S3XML(String(decoding: answer.data.prefix(64 << 10), as: UTF8.self))
        let code = xml.value("Code") ?? (answer.status == 404 ? (request.location.key.isEmpty ? "NoSuchBucket" : "NoSuchKey")
                                          : answer.status == 403 ? "AccessDenied" : "HTTP\(answer.status)")
        let retryAfter = answer.headers["retry-after"].flatMap { Transfer.seconds(retryAfter: $0) }
        return .service(S3Error.refused(operation: request.operation, location: request.location.description, status: answer.status, code: code,
                   message: xml.value("Message") ?? "", credentials: credentials, retryAfter: retryAfter))
    }
}

/// The S3 settings a process uses for `s3://` inputs and outputs.
public enum S3Service {
    /// Puts a preset's `s3` settings over the environment's (call before the run starts).
    public static func configure(_ bucket: BucketSettings?) {
        guard let bucket else { return }
        let settings = S3Settings(region: bucket.region, endpoint: bucket.endpoint, pathStyle: bucket.pathStyle)
        S3Client.sharedClient.withLock { $0 = S3Client(settings: settings) }
    }
}
