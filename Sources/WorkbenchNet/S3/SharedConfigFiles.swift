import Foundation

/// The AWS shared files, `~/.aws/credentials` and `~/.aws/config` (or where
/// `AWS_SHARED_CREDENTIALS_FILE` and `AWS_CONFIG_FILE` say), read as the AWS CLI reads them:
/// `[name]` sections in the credentials file, `[profile name]` (and `[default]`) in the config
/// file, `key = value` lines, `#` and `;` comments.
struct SharedConfigFiles: Sendable {
    let profile: String
    let credentialsPath: String
    let configPath: String
    /// Profile name → key → value.
    let credentials: [String: [String: String]]
    let config: [String: [String: String]]

    init(environment env: [String: String]) {
        let home = env["HOME"] ?? NSHomeDirectory()
        profile = env["AWS_PROFILE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        credentialsPath = env["AWS_SHARED_CREDENTIALS_FILE"] ?? home + "/.aws/credentials"
        configPath = env["AWS_CONFIG_FILE"] ?? home + "/.aws/config"
        credentials = Self.sections(of: credentialsPath, isConfig: false)
        config = Self.sections(of: configPath, isConfig: true)
    }

    static func sections(of path: String, isConfig: Bool) -> [String: [String: String]] {
        // No credentials or config file is the usual case (credentials from the environment or a
        // role), as in the AWS CLI.
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [:] }
        return parse(text, isConfig: isConfig)
    }

    static func parse(_ text: String, isConfig: Bool) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                var name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                if isConfig && name.hasPrefix("profile ") { name = name.dropFirst(8).trimmingCharacters(in: .whitespaces) }
                current = name
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[current, default: [:]][key] = value
        }
        return sections
    }
}
