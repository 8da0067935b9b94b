import Foundation
import WorkbenchCore

/// Temporary credentials for a pod's service account: the token file Kubernetes mounts is
/// exchanged for them with STS AssumeRoleWithWebIdentity (a call that is not signed; the token
/// is the proof). They last about an hour; `CachingCredentials` asks again before they expire.
struct WebIdentityCredentials: CredentialProvider {
    /// The file Kubernetes mounts the service account's token in (read at each fetch: it is
    /// renewed), the role's ARN, and the session name STS records (else `workbench-PID`).
    let identity: (tokenFile: String?, role: String?, sessionName: String?)
    /// Where STS is (`AWS_ENDPOINT_URL_STS`, else the region's).
    let settings: S3Settings
    /// Where the token file was named, and the name of the role's setting, for messages.
    let place: String
    let roleSetting: String
    /// A profile uses web identity only when it names both; the environment's token file
    /// alone is a mistake worth saying.
    let needsRole: Bool

    init(tokenFile: String?, role: String?, sessionName: String?, settings: S3Settings, place: String, roleSetting: String,
         needsRole: Bool = false) {
        identity = (tokenFile, role, sessionName)
        self.settings = settings
        self.place = place
        self.roleSetting = roleSetting
        self.needsRole = needsRole
    }

    var isConfigured: Bool {
        guard let tokenFile = identity.tokenFile, !tokenFile.isEmpty else { return false }
        return !needsRole || !(identity.role ?? "").isEmpty
    }

    func fetch(_ done: @escaping @Sendable (Result<S3Credentials, S3Error>) -> Void) {
        guard let tokenFile = identity.tokenFile, !tokenFile.isEmpty else { return done(.failure(.credentials("\(place) is not set"))) }
        guard let role = identity.role, !role.isEmpty else {
            return done(.failure(.credentials("\(place) is set but \(roleSetting) is not; web identity needs the role to assume")))
        }
        // An unreadable token file is reported just below, with its path.
        guard let token = try? String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
              !token.isEmpty else {
            return done(.failure(.credentials("cannot read the web identity token file \(tokenFile) (\(place))")))
        }
        let env = settings.environment
        let endpoint = env["AWS_ENDPOINT_URL_STS"].flatMap { $0.isEmpty ? nil : $0 } ?? env["AWS_ENDPOINT_URL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "https://sts.\(settings.region).amazonaws.com"
        let form = [("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", role),
                    ("RoleSessionName", identity.sessionName ?? "workbench-\(getpid())"), ("WebIdentityToken", token)]
            .map { "\($0.0)=\(SigV4.encode($0.1))" }.joined(separator: "&")
        let limits = Transfer.Limits(timeout: 30, connectTimeout: 10, maxBytes: 1 << 20, maxRedirects: 0,
                                     headers: ["Content-Type: application/x-www-form-urlencoded"])
        Transfer.start(endpoint.hasSuffix("/") ? endpoint : endpoint + "/", limits: limits,
                       outgoing: Transfer.Outgoing(method: "POST", body: Data(form.utf8), answersAnyStatus: true),
                       cancellation: CancellationToken()) { result in
            switch result {
            case .failure(let error):
                done(.failure(.credentials("STS at \(endpoint) could not be reached for web identity credentials: \(error)")))
            case .success(let answer):
                done(Self.credentials(from: answer, endpoint: endpoint, role: role, tokenFile: tokenFile))
            }
        }
    }

    private static func credentials(from answer: Downloaded, endpoint: String, role: String, tokenFile: String) -> Result<S3Credentials, S3Error> {
        let xml = S3XML(String(decoding: answer.data, as: UTF8.self))
        guard answer.status == 200, let key = xml.value("AccessKeyId"), let secret = xml.value("SecretAccessKey") else {
            let reason = [xml.value("Code"), xml.value("Message")].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
            return .failure(.credentials("STS at \(endpoint) refused to assume role \(role) with the token in \(tokenFile) (HTTP \(answer.status)\(reason.isEmpty ? "" : ", " + reason)); check the role's trust policy and the service account"))
        }
        let expiration = xml.value("Expiration").flatMap { ISO8601DateFormatter().date(from: $0) }
        return .success(S3Credentials(accessKey: key, secret: secret, sessionToken: xml.value("SessionToken"), expiration: expiration,
                                      source: "web identity (role \(role))"))
    }
}
