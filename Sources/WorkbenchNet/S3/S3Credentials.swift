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

    /// Whether they should be replaced before use (five minutes before they expire).
    var isStale: Bool { expiration.map { $0.timeIntervalSinceNow < 300 } ?? false }
}

/// Finds credentials the way the AWS tools do, first match wins: the environment
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`); web identity
/// (`AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN`, through STS — what EKS gives a pod); the
/// shared files (`~/.aws/credentials`, `~/.aws/config`, `AWS_PROFILE`), where a profile may also
/// name a role and a token file.
enum CredentialChain {
    static func resolve(_ settings: S3Settings) throws(DownloadError) -> S3Credentials {
        let env = settings.environment
        if let key = env["AWS_ACCESS_KEY_ID"], !key.isEmpty {
            guard let secret = env["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
                throw .service(S3Error.credentials("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; export both (and AWS_SESSION_TOKEN for temporary keys)"))
            }
            return S3Credentials(accessKey: key, secret: secret, sessionToken: env["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
                                 source: "the environment (AWS_ACCESS_KEY_ID)")
        }
        if let tokenFile = env["AWS_WEB_IDENTITY_TOKEN_FILE"], !tokenFile.isEmpty {
            guard let role = env["AWS_ROLE_ARN"], !role.isEmpty else {
                throw .service(S3Error.credentials("AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not; web identity needs the role to assume"))
            }
            return try WebIdentity(tokenFile: tokenFile, role: role, sessionName: env["AWS_ROLE_SESSION_NAME"]).assume(settings)
        }
        let files = settings.sharedFiles
        let profile = files.profile
        if let values = files.credentials[profile] ?? files.config[profile] {
            if let key = values["aws_access_key_id"], !key.isEmpty {
                let file = files.credentials[profile]?["aws_access_key_id"] != nil ? files.credentialsPath : files.configPath
                guard let secret = values["aws_secret_access_key"], !secret.isEmpty else {
                    throw .service(S3Error.credentials("profile \"\(profile)\" in \(file) has aws_access_key_id but no aws_secret_access_key"))
                }
                return S3Credentials(accessKey: key, secret: secret, sessionToken: values["aws_session_token"],
                                     source: "profile \"\(profile)\" in \(file)")
            }
        }
        if let values = files.config[profile], let role = values["role_arn"], let tokenFile = values["web_identity_token_file"] {
            return try WebIdentity(tokenFile: tokenFile, role: role, sessionName: values["role_session_name"]).assume(settings)
        }
        var looked = "AWS_ACCESS_KEY_ID, AWS_WEB_IDENTITY_TOKEN_FILE, profile \"\(profile)\" in \(files.credentialsPath) and \(files.configPath)"
        if env["AWS_PROFILE"] != nil && files.credentials[profile] == nil && files.config[profile] == nil {
            looked += " (AWS_PROFILE names a profile neither file has)"
        }
        throw .service(S3Error.credentials("no credentials found (looked at \(looked)); export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or set AWS_PROFILE"))
    }
}

