/// One place credentials may come from (the environment, a profile, a web identity token).
/// A provider says whether it is set up here before it is asked, so a chain can take the
/// first that is, as the AWS tools do; asking answers through a callback, and no thread waits.
protocol CredentialProvider: Sendable {
    /// Whether this source is set up here (its variables or profile entries exist).
    var isConfigured: Bool { get }
    /// Where it looks, for the message when no source in a chain is set up.
    var place: String { get }
    /// Finds the credentials; `done` runs once, on whatever thread finished the work.
    func fetch(_ done: @escaping @Sendable (Result<S3Credentials, S3Error>) -> Void)
}

/// The first configured of several providers: the order the AWS tools use is `standard`.
struct CredentialChain: CredentialProvider {
    let providers: [any CredentialProvider]
    /// Said when no provider is set up (AWS_PROFILE naming a profile neither file has).
    let note: String

    /// The environment's keys, then web identity from the environment (what EKS gives a pod),
    /// then the shared files' profile: its keys, or a role and token file it names.
    static func standard(_ settings: S3Settings) -> CredentialChain {
        let files = settings.sharedFiles, env = settings.environment
        let profile = files.config[files.profile]
        var note = ""
        if env["AWS_PROFILE"] != nil && files.credentials[files.profile] == nil && profile == nil {
            note = " (AWS_PROFILE names a profile neither file has)"
        }
        let profileKeys = ProfileCredentials(files: files)
        return CredentialChain(providers: [
            EnvironmentCredentials(environment: env),
            WebIdentityCredentials(tokenFile: env["AWS_WEB_IDENTITY_TOKEN_FILE"], role: env["AWS_ROLE_ARN"],
                                   sessionName: env["AWS_ROLE_SESSION_NAME"], settings: settings,
                                   place: "AWS_WEB_IDENTITY_TOKEN_FILE", roleSetting: "AWS_ROLE_ARN"),
            profileKeys,
            // The profile's role is looked for in the same place as its keys.
            WebIdentityCredentials(tokenFile: profile?["web_identity_token_file"], role: profile?["role_arn"],
                                   sessionName: profile?["role_session_name"], settings: settings,
                                   place: profileKeys.place, roleSetting: "role_arn", needsRole: true),
        ], note: note)
    }

    var isConfigured: Bool { providers.contains { $0.isConfigured } }
    /// Where the providers look, each place once, in order.
    var place: String {
        var seen = Set<String>()
        return providers.map(\.place).filter { seen.insert($0).inserted }.joined(separator: ", ")
    }

    func fetch(_ done: @escaping @Sendable (Result<S3Credentials, S3Error>) -> Void) {
        guard let first = providers.first(where: { $0.isConfigured }) else {
            return done(.failure(.credentials("no credentials found (looked at \(place)\(note)); export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or set AWS_PROFILE")))
        }
        first.fetch(done)
    }
}
