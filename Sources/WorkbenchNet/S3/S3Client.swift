import Foundation
import Synchronization
import WorkbenchCore

/// S3's REST calls, signed (`SigV4`) and retried (`S3Retry`), on the Downloader's libcurl loop.
/// A value built from `S3Settings` and handed to what needs it (`S3Listing`, `S3Output.root`,
/// the download stage through `RunOptions.s3`); two clients with other settings work side by
/// side. Its credentials come from a chain of providers behind `CachingCredentials`, which
/// finds them again before temporary ones expire without holding up a thread.
public final class S3Client: Sendable {
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

    public let settings: S3Settings
    let credentials: CachingCredentials

    /// A client for `settings`, with credentials found the way the AWS tools find them.
    public convenience init(settings: S3Settings) {
        self.init(settings: settings, credentials: CredentialChain.standard(settings))
    }

    /// A client for a preset's `s3` settings over the environment's.
    public convenience init(bucket: BucketSettings?, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(settings: S3Settings(environment: environment, region: bucket?.region, endpoint: bucket?.endpoint,
                                       pathStyle: bucket?.pathStyle))
    }

    init(settings: S3Settings, credentials: any CredentialProvider) {
        self.settings = settings
        self.credentials = credentials as? CachingCredentials ?? CachingCredentials(credentials)
    }

    static let emptyPayloadHash = SHA256.hex([UInt8]())

    /// The URL and headers of `request`, signed now with `credentials`.
    func signed(_ request: Request, with credentials: S3Credentials) -> (url: String, headers: [String]) {
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

    /// Sends `request` once; an answer of 300 or more becomes an `S3Error.refused` with S3's code.
    func attempt(_ request: Request, limits: Transfer.Limits, cancellation: CancellationToken,
                 progress: (@Sendable (Int, Int?) -> Void)? = nil,
                 completion: @escaping @Sendable (Result<Response, DownloadError>) -> Void) {
        credentials.fetch { [self] found in
            let credentials: S3Credentials
            switch found {
            case .success(let held): credentials = held
            case .failure(let error): return completion(.failure(.service(error)))
            }
            let (url, headers) = signed(request, with: credentials)
            var limits = limits
            limits.headers += headers
            let outgoing = Transfer.Outgoing(method: request.method, body: request.body, answersAnyStatus: true)
            Transfer.start(url, limits: limits, outgoing: outgoing, cancellation: cancellation, progress: progress) { [settings] result in
                completion(result.mapError { Self.named($0, request, settings: settings) }.flatMap { answer in
                    if answer.status < 300 || answer.status == 304 {
                        return .success(Response(status: answer.status, headers: answer.headers, data: answer.data, file: answer.file))
                    }
                    return .failure(Self.refusal(answer, request, credentials: credentials.source))
                })
            }
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

    /// `send`, waiting for the answer on this thread (`PendingAnswer`: synchronous callers only).
    func perform(_ request: Request, limits: Transfer.Limits, cancellation: CancellationToken = CancellationToken()) throws(DownloadError) -> Response {
        try PendingAnswer.waiting { answer in send(request, limits: limits, cancellation: cancellation, completion: answer) }.get()
    }

    /// Transport failures name the object, not the signed URL (whose query may be long); an
    /// unreachable server is said in S3's words (`S3Error.unreachable`).
    private static func named(_ error: DownloadError, _ request: Request, settings: S3Settings) -> DownloadError {
        switch error {
        case .transport(_, let code, let message):
            return .service(S3Error.unreachable(location: request.location.description, code: code, message: message,
                                                 endpointIsDefault: settings.endpoint == nil))
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

extension S3Client {
    /// Where a run's stages find the client their caller handed in (`RunOptions.s3`).
    public enum Key: StageServiceKey {
        public typealias Value = S3Client
    }
}

extension RunOptions {
    /// The client the run's `download` nodes use for `s3://` URLs; a run handed none fails
    /// those items, saying so (`DownloadError.noS3Client`).
    public var s3: S3Client? {
        get { services[S3Client.Key.self] }
        set { services[S3Client.Key.self] = newValue }
    }
}
