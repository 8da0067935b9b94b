import CVips
import Foundation
import Synchronization
import WorkbenchCore

/// A format `encode` writes, and the libvips saver that writes it.
struct EncodeFormat: Sendable {
    let name: String
    /// The `*save_buffer` operation.
    let saver: String
    /// Saver arguments the format implies (AVIF is HEIF with AV1 compression).
    let implied: [String: String]

    /// Every format `encode` knows; `available` keeps those this libvips has a saver for
    /// (loading the modules that have them), `loaded` those whose saver is loaded already.
    static let known = [
        EncodeFormat(name: "jpeg", saver: "jpegsave_buffer", implied: [:]),
        EncodeFormat(name: "png", saver: "pngsave_buffer", implied: [:]),
        EncodeFormat(name: "webp", saver: "webpsave_buffer", implied: [:]),
        EncodeFormat(name: "tiff", saver: "tiffsave_buffer", implied: [:]),
        EncodeFormat(name: "gif", saver: "gifsave_buffer", implied: [:]),
        EncodeFormat(name: "heif", saver: "heifsave_buffer", implied: [:]),
        EncodeFormat(name: "avif", saver: "heifsave_buffer", implied: ["compression": "av1"]),
        EncodeFormat(name: "jxl", saver: "jxlsave_buffer", implied: [:]),
    ]

    static var available: [EncodeFormat] { known.filter { VipsIntrospection.operation($0.saver) != nil } }

    static var loaded: [EncodeFormat] { known.filter { VipsIntrospection.isLoaded($0.saver) } }

    static func named(_ name: String) -> EncodeFormat? { known.first { $0.name == name } }

    var displayName: String { name == "jxl" ? "JPEG XL" : name == "webp" ? "WebP" : name.uppercased() }

    /// Whether the format carries transparency (GIF as one transparent colour); libvips
    /// flattens alpha for the others when it saves.
    var keepsAlpha: Bool { name != "jpeg" }

    /// The saver's options a preset may give (its inputs except the image and implied ones).
    var options: [VipsArgumentInfo] {
        VipsIntrospection.operation(saver)?.arguments.filter {
            $0.isInput && !$0.kind.isImage && implied[$0.name] == nil
        } ?? []
    }

    private static let probes = ProbeCache()

    /// Nil if this libvips can write the format, else why not. Savers that depend on optional
    /// encoders (HEIF, AVIF) are tried once on a tiny image; the answer is kept.
    func unavailableReason() -> String? {
        guard VipsIntrospection.operation(saver) != nil else {
            let module = VipsModules.absence(ofOperation: saver).map { ": \($0)" } ?? ""
            return "this libvips has no \(saver) (libvips \(VipsRuntime.version))\(module); choose one of "
                + EncodeFormat.available.map(\.name).joined(separator: ", ")
        }
        guard ["heif", "avif", "jxl"].contains(name) else { return nil }
        return Self.probes.answer(for: name) {
            do {
                let tiny = try VipsOperationCall.image("black", nil, ["width": .int(16), "height": .int(16), "bands": .int(3)])
                _ = try tiny.encode(self, options: [:], cancellation: CancellationToken()).data
                return nil
            } catch {
                return "this libvips cannot write \(name): \(error)"
            }
        }
    }
}

/// Answers computed once per key, shared by every thread.
private final class ProbeCache: Sendable {
    private let answers = Mutex<[String: String?]>([:])

    func answer(for key: String, _ compute: () -> String?) -> String? {
        if let known = answers.withLock({ $0[key] }) { return known }
        let answer = compute()
        answers.withLock { $0[key] = answer }
        return answer
    }
}

extension VipsImage {
    /// Decodes a whole file's bytes for inspection (random access, fails on any error).
    public static func decode(_ data: Data, origin: String) throws(VipsError) -> VipsImage {
        try open(Bytes(data, origin: origin), sequential: false, failOn: .error)
    }

    /// Evaluates the pipeline and encodes it with the format's saver and `options` (libvips
    /// argument names). Cancelling `token` kills the evaluation. Damage in the source bytes that
    /// shows only now (libvips decodes lazily) fails as `.damaged`, blamed on the decode; damage
    /// the decoder worked around comes back as `warnings`.
    /// `progress` hears (pixels done, pixels in all) as the pixels are computed.
    func encode(_ format: EncodeFormat, options: [String: VipsArgumentValue], cancellation token: CancellationToken,
                progress: (@Sendable (Int, Int) -> Void)? = nil) throws(VipsError) -> (data: Data, warnings: [String]) {
        if token.isCancelled { throw .cancelled }
        guard let info = VipsIntrospection.operation(format.saver), let input = info.mainInput else {
            throw .encodeFailed(format: format.displayName, message: "this libvips has no \(format.saver)")
        }
        var arguments: [(VipsArgumentInfo, VipsArgumentValue)] = [(input, .image(self))]
        var named = options
        for (name, nick) in format.implied { named[name] = .string(nick) }
        for (name, value) in named {
            guard let argument = info.arguments.first(where: { $0.name == name && $0.isInput }) else { continue }
            if case .enumeration(let values, _) = argument.kind, case .string(let nick) = value {
                guard let raw = values.value(of: nick) else { continue }
                arguments.append((argument, .enumeration(raw)))
            } else {
                arguments.append((argument, value))
            }
        }
        var outputs: VipsCallOutputs
        do {
            outputs = try VipsOperationCall.run(info, arguments, cancellation: token, progress: progress)
        } catch {
            guard case .operationFailed(_, let first) = error else { throw error }
            // A kernel in this pipeline failed: its own message says it all.
            if let kernel = KernelFailures.take(origin: origin) { throw .encodeFailed(format: format.displayName, message: kernel) }
            if let damage = DamageCheck.damage(of: origin, after: error) { throw damage }
            // Not the bytes: the saver's own failure, in its own words (run alone).
            do {
                outputs = try VipsErrorLog.alone { () throws(VipsError) in try VipsOperationCall.run(info, arguments, cancellation: token) }
            } catch {
                // A streamed decode cannot be read twice: then the first attempt's words (e.g. a
                // kernel's message) are the ones that say what went wrong.
                if case .operationFailed(_, let message) = error {
                    throw .encodeFailed(format: format.displayName, message: message.contains("out of order read") ? first : message)
                }
                throw error
            }
        }
        guard let data = outputs.blobs.values.first else {
            throw .encodeFailed(format: format.displayName, message: "the saver returned no bytes")
        }
        return (data, try DamageCheck.warnings(outputs.warnings, clean: outputs.clean, origin: origin))
    }
}
