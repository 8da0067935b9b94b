import Foundation

/// An access key and its secret (and session token, for temporary credentials), with where they
/// came from. `description` never shows the secret or the token: a credential may end up in a
/// message by mistake, its secret may not.
public struct S3Credentials: Sendable, CustomStringConvertible {
    public let accessKey: String
    let secret: String
    let sessionToken: String?
    /// When temporary credentials stop working (web identity); nil for long-lived keys.
    let expiration: Date?
    /// Where they came from, for messages: "the environment (AWS_ACCESS_KEY_ID)", "profile
    /// \"ci\" in /root/.aws/credentials", "web identity (role arn:…)".
    public let source: String

    init(accessKey: String, secret: String, sessionToken: String? = nil, expiration: Date? = nil, source: String) {
        self.accessKey = accessKey
        self.secret = secret
        self.sessionToken = sessionToken
        self.expiration = expiration
        self.source = source
    }

    public var description: String { "credentials from \(source)" }

    /// Whether they expire within `seconds` of `now` (long-lived keys never do).
    func expire(within seconds: Double, of now: Date) -> Bool {
        expiration.map { $0.timeIntervalSince(now) < seconds } ?? false
    }
}
