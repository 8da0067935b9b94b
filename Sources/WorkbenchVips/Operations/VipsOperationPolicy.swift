/// What a preset may do with one libvips operation (the safety policy), decided once from
/// libvips' own description of it.
///
/// A preset may come from someone else. It may read files inside its own folder and write only
/// through `write`, so every operation is one of: offered as it is; offered with the arguments
/// that name files *confined* to the preset's folder; or not offered, with the reason.
public enum VipsOperationPolicy: Sendable, Equatable {
    case offered
    /// Offered; these arguments name files and must lie inside the preset's folder.
    case confined([String])
    /// Not offered, and why.
    case notOffered(String)

    /// String arguments that name a file the operation reads (never writes: savers that write
    /// files are not offered at all).
    static let fileArguments: Set<String> = [
        "filename", "fontfile", "profile", "input_profile", "output_profile", "import_profile", "export_profile",
    ]

    /// Profile arguments also take the names of libvips' built-in profiles.
    static let builtinProfiles = ["srgb", "cmyk", "none"]

    /// String arguments reviewed one by one and found to name no file and run nothing: text,
    /// fonts by name, separators, names inside a zip being built, an ImageMagick format name,
    /// a PDF password, and the loader options `thumbnail_buffer` passes on (buffer loaders
    /// have no file arguments). An argument outside both lists keeps its operation off.
    static let wordArguments: Set<String> = [
        "text", "font", "whitespace", "separator", "dirname", "basename", "suffix", "id", "density", "format",
        "associated", "password", "option_string",
    ]

    /// The policy for one operation.
    static func decide(_ info: VipsOperationInfo) -> VipsOperationPolicy {
        let nick = info.nickname
        if nick == "system" {
            return .notOffered("it runs a program (\"cmd_format\"); a preset may never run programs")
        }
        if let stream = info.arguments.first(where: { $0.isRequired && $0.kind.isStream }) {
            let buffer = nick.replacingOccurrences(of: "_source", with: "_buffer").replacingOccurrences(of: "_target", with: "_buffer")
            return .notOffered("it reads or writes a libvips stream (\"\(stream.name)\"); use the \(buffer) form or decode/encode")
        }
        if info.arguments.contains(where: { $0.isInput && ($0.name == "fd" || $0.name == "descriptor") }) {
            return .notOffered("it writes to a file descriptor; use \"encode\" and \"write\"")
        }
        if info.isSaver && !info.arguments.contains(where: { $0.isOutput && $0.kind.isBlob }) {
            let target = info.arguments.contains { $0.name == "filename" && $0.isInput }
                ? "a file wherever \"filename\" points, outside the output root" : "to standard output or a file of its own"
            let buffer = VipsIntrospection.operation(nick + "_buffer") != nil ? " (or vips.\(nick)_buffer)" : ""
            return .notOffered("it writes \(target); use \"encode\"\(buffer) and \"write\"")
        }
        if let odd = info.arguments.first(where: { $0.isRequired && $0.kind.isUnsupported }) {
            return .notOffered("its argument \"\(odd.name)\" has a type presets cannot express")
        }
        var files: [String] = []
        for argument in info.arguments where argument.isInput {
            guard case .string = argument.kind else { continue }
            if fileArguments.contains(argument.name) || (nick == "profile_load" && argument.name == "name") {
                files.append(argument.name)
            } else if !wordArguments.contains(argument.name) {
                return .notOffered("its text argument \"\(argument.name)\" has not been reviewed as safe (it may name a file or a command)")
            }
        }
        return files.isEmpty ? .offered : .confined(files)
    }

    /// Why a preset cannot use the operation, or nil.
    var reason: String? {
        if case .notOffered(let reason) = self { return reason }
        return nil
    }

    /// The arguments confined to the preset's folder.
    var confinedArguments: [String] {
        if case .confined(let names) = self { return names }
        return []
    }

    /// The built-in names an argument of this operation accepts besides files (profiles).
    static func builtins(for argument: String) -> [String] {
        argument.hasSuffix("profile") || argument == "name" ? builtinProfiles : []
    }
}

extension VipsOperationInfo {
    /// What a preset may do with this operation.
    public var policy: VipsOperationPolicy { VipsOperationPolicy.decide(self) }
}
