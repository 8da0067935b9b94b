import Foundation

/// Where S3 requests go and how they are addressed: the region, a custom endpoint (MinIO, Ceph,
/// R2, Google Cloud Storage's S3 interoperability, a test server) and path-style addressing,
/// from the preset or, as the AWS tools read them, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`,
/// `AWS_REGION`, `AWS_DEFAULT_REGION` and the profile's `region` and `endpoint_url`.
public struct S3Settings: Sendable {
    let environment: [String: String]
    let sharedFiles: SharedConfigFiles
    public let region: String
    /// Scheme, host and port of a custom endpoint, without a trailing slash; nil for AWS.
    public let endpoint: String?
    /// `endpoint/bucket/key` instead of `bucket.endpoint/key`: what MinIO and Ceph expect, and
    /// the default with a custom endpoint.
    public let pathStyle: Bool

    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                region: String? = nil, endpoint: String? = nil, pathStyle: Bool? = nil) {
        self.environment = environment
        let files = SharedConfigFiles(environment: environment)
        sharedFiles = files
        let profile = files.config[files.profile] ?? [:]
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        self.region = nonEmpty(region) ?? nonEmpty(environment["AWS_REGION"]) ?? nonEmpty(environment["AWS_DEFAULT_REGION"])
            ?? nonEmpty(profile["region"]) ?? "us-east-1"
        let custom = nonEmpty(endpoint) ?? nonEmpty(environment["AWS_ENDPOINT_URL_S3"]) ?? nonEmpty(environment["AWS_ENDPOINT_URL"])
            ?? nonEmpty(profile["endpoint_url"])
        self.endpoint = custom.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        self.pathStyle = pathStyle ?? (custom != nil)
    }

    /// Where a request about `bucket` (and `key`) goes: the URL without its query, the Host
    /// header libcurl sends, and the path as signed.
    func address(bucket: String, key: String) -> (url: String, host: String, path: String) {
        let encodedKey = SigV4.encode(key, keepingSlashes: true)
        // A bucket with dots breaks TLS names as a subdomain: path style for it.
        let virtual = !pathStyle && !bucket.contains(".")
        let base = endpoint ?? "https://s3.\(region).amazonaws.com"
        guard let schemeEnd = base.range(of: "://") else { return (base, base, "/") }
        let scheme = base[..<schemeEnd.upperBound]
        var authority = String(base[schemeEnd.upperBound...])
        var basePath = ""
        if let slash = authority.firstIndex(of: "/") {
            basePath = String(authority[slash...])
            authority = String(authority[..<slash])
        }
        // libcurl leaves the default port out of Host; the signature must name the same.
        let host = scheme.lowercased() == "https://" && authority.hasSuffix(":443") ? String(authority.dropLast(4))
            : scheme.lowercased() == "http://" && authority.hasSuffix(":80") ? String(authority.dropLast(3)) : authority
        if virtual {
            let path = basePath + "/" + encodedKey
            return ("\(scheme)\(bucket).\(authority)\(path)", "\(bucket).\(host)", path)
        }
        let path = basePath + "/" + bucket + (key.isEmpty ? "" : "/" + encodedKey)
        return ("\(scheme)\(authority)\(path)", host, path)
    }

    /// For messages: where requests go.
    var endpointDescription: String { endpoint ?? "AWS (region \(region))" }
}
