import Foundation

/// `read`: the bytes of a local file (or a `file://` URL) given as the item.
struct ReadStage: Stage {
    /// The op's parameters, each declared once and bound to its field.
    struct Parameters: OpParameters {
        var path: String?
        var maxBytes = 256 << 20

        static let bindings: [ParameterBinding<Self>] = [
            .string("path", \.path, "Read this file, inside the preset's folder, instead of the item (needed with \"scope\": \"run\").",
                    type: .presetFile(builtins: [])),
            .int("maxBytes", \.maxBytes, 1...Int(Int32.max), "Refuse files larger than this many bytes."),
        ]
    }

    static let spec = OpSpec(
        name: "read", summary: "Reads the item's local file.",
        input: nil, output: .bytes, defaultQueue: "disk", execution: .io,
        parameters: Parameters.specs,
        sourceParameter: "path")

    static let definition = OpDefinition(spec) { values in
        let p = Parameters(values)
        return ReadStage(path: p.path, maxBytes: p.maxBytes)
    }

    let path: String?
    let maxBytes: Int

    func run(_ inputs: StageInputs, context: StageContext) throws -> Payload {
        // The item is a file the user named; a path in the preset stays inside its folder.
        if let path {
            return .bytes(try LocalFile.read(try PresetFolder.resolve(path, in: context.baseDirectory), maxBytes: maxBytes))
        }
        return try LocalFile.readInput(of: context, maxBytes: maxBytes)
    }
}

/// Reading a local input, shared by `read` and by `download` for inputs the user gave as paths.
public enum LocalFile {
    /// The item's own input file. On an incremental run the input's identity is recorded
    /// (`StageContext.recordInput`); when the file's size and time are as recorded and nothing of the item needs doing, it is
    /// not read at all.
    public static func readInput(of context: StageContext, maxBytes: Int) throws(WorkbenchError) -> Payload {
        let source = context.item.source
        guard let history = context.inputHistory else { return .bytes(try read(source, maxBytes: maxBytes)) }
        let path = try localPath(source)
        var info = stat()
        guard stat(path, &info) == 0 else { throw .readFailed(path: path, reason: String(cString: strerror(errno))) }
        let size = Int(info.st_size)
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        if let recorded = history.unchangedLocalInput(context.item, size: size, modifiedNs: modified) {
            return .unreadInput(recorded)
        }
        let bytes = try read(path, info: info, maxBytes: maxBytes)
        let identity = InputIdentity(content: ContentHash.hex(bytes.data), size: size, modifiedNs: modified)
        context.recordInput(identity)
        return .bytes(bytes)
    }

    /// The bytes of a local path or `file://` URL, refusing files larger than `maxBytes`.
    public static func read(_ source: String, maxBytes: Int) throws(WorkbenchError) -> Bytes {
        let path = try localPath(source)
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .readFailed(path: path, reason: String(cString: strerror(errno)))
        }
        return try read(path, info: info, maxBytes: maxBytes)
    }

    /// The same, for a path just looked at with `stat`.
    private static func read(_ path: String, info: stat, maxBytes: Int) throws(WorkbenchError) -> Bytes {
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .readFailed(path: path, reason: "not a regular file")
        }
        guard Int(info.st_size) <= maxBytes else {
            throw .inputTooLarge(path: path, size: Int(info.st_size), limit: maxBytes)
        }
        let data = try readWhole(path, expected: Int(info.st_size), maxBytes: maxBytes)
        // The file may have grown since stat.
        guard data.count <= maxBytes else { throw .inputTooLarge(path: path, size: data.count, limit: maxBytes) }
        return Bytes(data, origin: path)
    }

    /// Reads the file into one buffer of the size `stat` gave, growing it only if the file grew.
    /// Foundation's `read(upToCount:)` grows its buffer by reallocation, which left up to twice
    /// a photo's size allocated and fragmented glibc's arenas with every input.
    private static func readWhole(_ path: String, expected: Int, maxBytes: Int) throws(WorkbenchError) -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .readFailed(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        // One byte more than expected shows whether the file grew since stat.
        var data = Data(count: min(expected, maxBytes) + 1)
        var filled = 0
        while true {
            if filled == data.count {
                guard data.count <= maxBytes else { break }
                data.count = min(data.count * 2, maxBytes + 1)
            }
            let got = data.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Foundation.read(fd, base + filled, buffer.count - filled)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, reason: String(cString: strerror(errno)))
            }
            if got == 0 { break }
            filled += got
            // Exactly the size `stat` gave, and the byte asked for beyond it not there: the end
            // (a regular file reads short only there), without another `read` to say so.
            if filled == expected && filled < data.count { break }
        }
        data.count = filled
        return data
    }

    private static func localPath(_ source: String) throws(WorkbenchError) -> String {
        if source.hasPrefix("file://") { return URL(string: source)?.path ?? String(source.dropFirst("file://".count)) }
        if Item.hasScheme(source) {
            throw .readFailed(path: source, reason: "\"read\" takes local paths; use \"download\" for URLs")
        }
        return source
    }
}
