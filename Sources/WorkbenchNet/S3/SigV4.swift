import Foundation
import WorkbenchCore

/// AWS Signature Version 4 for S3 requests: the headers that prove the request comes from the
/// holder of the secret, without sending it. The secret only ever enters an HMAC here.
///
/// Signed: `host` and every header the request sends; the payload's SHA-256 goes in
/// `x-amz-content-sha256`, so S3 also refuses a body changed in transit.
struct SigV4 {
    let credentials: S3Credentials
    let region: String
    var service = "s3"

    /// The headers to add to a request (`x-amz-date`, `x-amz-content-sha256`,
    /// `x-amz-security-token` for temporary credentials, `Authorization`), given the request's
    /// own headers (names in any case) and the SHA-256 of its body as hex.
    func headers(method: String, host: String, path: String, query: [(String, String)],
                 headers: [(String, String)], payloadHash: String, date: Date) -> [(String, String)] {
        let stamp = Self.timestamp(date)
        let day = String(stamp.prefix(8))
        var added: [(String, String)] = [("x-amz-date", stamp), ("x-amz-content-sha256", payloadHash)]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        var signed: [String: String] = ["host": host]
        for (name, value) in headers + added { signed[name.lowercased()] = value.trimmingCharacters(in: .whitespaces) }
        let names = signed.keys.sorted()
        let canonical = [
            method,
            path,
            Self.canonicalQuery(query),
            names.map { "\($0):\(signed[$0] ?? "")\n" }.joined(),
            names.joined(separator: ";"),
            payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let toSign = "AWS4-HMAC-SHA256\n\(stamp)\n\(scope)\n\(SHA256.hex(Array(canonical.utf8)))"
        var key = HMAC.sha256(key: Array(("AWS4" + credentials.secret).utf8), day)
        key = HMAC.sha256(key: key, region)
        key = HMAC.sha256(key: key, service)
        key = HMAC.sha256(key: key, "aws4_request")
        let signature = Hex.string(HMAC.sha256(key: key, toSign))
        added.append(("Authorization", "AWS4-HMAC-SHA256 Credential=\(credentials.accessKey)/\(scope), SignedHeaders=\(names.joined(separator: ";")), Signature=\(signature)"))
        return added
    }

    /// `20130524T000000Z`.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// Name=value pairs sorted by name (then value), each encoded as S3 expects.
    static func canonicalQuery(_ query: [(String, String)]) -> String {
        query.map { (encode($0.0), encode($0.1)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// RFC 3986 percent-encoding of everything but unreserved characters (and `/` when a path
    /// is encoded), with uppercase hex: the one encoding the signature and the URL share.
    static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var out: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepingSlashes:
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
