/// Keys of the chosen profile (`AWS_PROFILE`, else "default") in the shared files: the
/// credentials file first, then the config file, as the AWS CLI reads them.
struct ProfileCredentials: CredentialProvider {
    let files: SharedConfigFiles

    private var entries: (values: [String: String], file: String)? {
        if let values = files.credentials[files.profile], values["aws_access_key_id"] != nil { return (values, files.credentialsPath) }
        if let values = files.config[files.profile], values["aws_access_key_id"] != nil { return (values, files.configPath) }
        return nil
    }

    var isConfigured: Bool { !(entries?.values["aws_access_key_id"] ?? "").isEmpty }
    var place: String { "profile \"\(files.profile)\" in \(files.credentialsPath) and \(files.configPath)" }

    func fetch(_ done: @escaping @Sendable (Result<S3Credentials, S3Error>) -> Void) {
        guard let (values, file) = entries, let key = values["aws_access_key_id"], !key.isEmpty else {
            return done(.failure(.credentials("profile \"\(files.profile)\" has no aws_access_key_id in \(files.credentialsPath) or \(files.configPath)")))
        }
        guard let secret = values["aws_secret_access_key"], !secret.isEmpty else {
            return done(.failure(.credentials("profile \"\(files.profile)\" in \(file) has aws_access_key_id but no aws_secret_access_key")))
        }
        done(.success(S3Credentials(accessKey: key, secret: secret, sessionToken: values["aws_session_token"],
                                    source: "profile \"\(files.profile)\" in \(file)")))
    }
}
