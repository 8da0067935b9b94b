/// Keys in the environment: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and, for temporary
/// keys, `AWS_SESSION_TOKEN`.
struct EnvironmentCredentials: CredentialProvider {
    let environment: [String: String]

    var isConfigured: Bool { !(environment["AWS_ACCESS_KEY_ID"] ?? "").isEmpty }
    var place: String { "AWS_ACCESS_KEY_ID" }

    func fetch(_ done: @escaping @Sendable (Result<S3Credentials, S3Error>) -> Void) {
        guard let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty else {
            return done(.failure(.credentials("AWS_ACCESS_KEY_ID is not set")))
        }
        guard let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
            return done(.failure(.credentials("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not; export both (and AWS_SESSION_TOKEN for temporary keys)")))
        }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        done(.success(S3Credentials(accessKey: key, secret: secret, sessionToken: token, source: "the environment (AWS_ACCESS_KEY_ID)")))
    }
}
