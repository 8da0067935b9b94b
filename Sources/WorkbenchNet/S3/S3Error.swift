/// What went wrong with a bucket: its credentials, a refusal by the server, or damage in transit.
/// Carried through the transport as `DownloadError.service`.
public enum S3Error: ServiceFailure {
    /// No usable credentials, or a problem with them found before asking the server.
    case credentials(String)
    /// The server refused a request: `operation` (GetObject, ListObjectsV2, …) on `location`
    /// (`s3://bucket/key`), with S3's status, error code and message, and where the credentials
    /// came from (never the credentials).
    case refused(operation: String, location: String, status: Int, code: String, message: String, credentials: String, retryAfter: Double?)
    /// An object arrived (or was stored) with other bytes than were sent: the checksums differ.
    case integrity(location: String, detail: String)
    /// The server could not be reached for `location` (libcurl's code and message).
    /// `endpointIsDefault`: no endpoint was set, so the host was made from AWS's pattern.
    case unreachable(location: String, code: Int, message: String, endpointIsDefault: Bool)

    public var description: String {
        switch self {
        case .credentials(let message):
            return "S3: \(message)."
        case .refused(let operation, let location, let status, let code, let message, let credentials, _):
            return Self.describe(operation: operation, location: location, status: status, code: code, message: message, credentials: credentials)
        case .integrity(let location, let detail):
            return "\(location) was damaged in transit (\(detail)); it is sent again on a retry."
        case .unreachable(let location, let code, let message, let endpointIsDefault):
            // A bucket's requests also put and list: the server, not a body, was out of reach.
            let hint = code == 6 && endpointIsDefault
                // The user typed no host: it was made from the region because no endpoint was set.
                ? "; with no S3 endpoint set, AWS itself is assumed and this host is made from the bucket and the region: for MinIO, Ceph, R2 or another server set AWS_ENDPOINT_URL or the preset's \"s3\": {\"endpoint\": …}; for AWS, check the bucket's and the region's names"
                : DownloadError.hint(code: code, message: message)
            return "\(location) could not be reached: \(message) (libcurl error \(code))\(hint)."
        }
    }

    public var isRetryable: Bool {
        switch self {
        case .refused(_, _, let status, _, _, _, _): status >= 500 || status == 429
        case .integrity, .unreachable: true
        case .credentials: false
        }
    }

    public var retryAfter: Double? {
        if case .refused(_, _, _, _, _, _, let seconds) = self { return seconds }
        return nil
    }

    /// S3's refusal, with what to do about it for the codes people meet.
    static func describe(operation: String, location: String, status: Int, code: String, message: String, credentials: String) -> String {
        let said = "\(status) \(code)" + (message.isEmpty ? "" : ": \(message)")
        // s3://bucket/key → s3://bucket
        let bucket = location.hasPrefix("s3://") ? "s3://" + location.dropFirst(5).prefix { $0 != "/" } : location
        let advice: String
        switch code {
        case "NoSuchBucket":
            advice = "the bucket \(bucket) does not exist there; check its name, and the endpoint (AWS_ENDPOINT_URL_S3) and region (AWS_REGION)"
        case "NoSuchKey":
            advice = "there is no object \(location)"
        case "InvalidAccessKeyId":
            advice = "the server does not know the access key from \(credentials); check it (or the endpoint: keys of one S3 service are unknown to another)"
        case "SignatureDoesNotMatch":
            advice = "the secret key from \(credentials) does not belong to its access key; check AWS_SECRET_ACCESS_KEY or the profile's aws_secret_access_key"
        case "ExpiredToken", "TokenRefreshRequired", "InvalidToken":
            advice = "the session token from \(credentials) has expired or is not valid; get fresh credentials"
        case "AccessDenied", "AllAccessDisabled":
            // Some servers (Ceph's gateway with STS on) say no more than this to a wrong key.
            advice = "the credentials from \(credentials) may not do \(operation) on \(location); check the bucket's policy and the role's permissions, and the keys themselves (some servers answer a wrong key with a bare AccessDenied)"
        case "AuthorizationHeaderMalformed", "PermanentRedirect", "IllegalLocationConstraintException":
            advice = "the bucket \(bucket) is in another region than the requests were signed for; set AWS_REGION to the bucket's region"
        case "SlowDown", "ServiceUnavailable", "InternalError":
            advice = "the server is overloaded or failing; it was asked again with growing pauses; a rerun later takes up what is left"
        case "RequestTimeTooSkewed":
            advice = "this machine's clock is off from the server's; set it right (NTP)"
        default:
            advice = status == 403 ? "the credentials from \(credentials) were refused" : "the request was refused"
        }
        return "\(location): \(operation) failed (\(said)); \(advice)."
    }

    /// Whether the failure says the run cannot work at all (credentials, bucket, region), as
    /// opposed to one object's problem.
    var stopsRun: Bool {
        guard case .refused(_, _, _, let code, _, _, _) = self else { if case .credentials = self { return true }; return false }
        return ["NoSuchBucket", "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "TokenRefreshRequired", "InvalidToken",
                "AuthorizationHeaderMalformed", "PermanentRedirect", "RequestTimeTooSkewed"].contains(code)
    }
}
