import CVipsBridge
import Foundation
import WorkbenchCore

/// Errors from libvips: loading, running an operation, or encoding.
public enum VipsError: Error, Sendable, CustomStringConvertible {
    /// libvips could not start (missing modules, a broken install).
    case startFailed(String)
    /// The bytes are not an image libvips can read, or are damaged.
    case decodeFailed(origin: String, message: String)
    /// The image is larger than the decode stage's pixel limit.
    case tooManyPixels(origin: String, width: Int, height: Int, limit: Int)
    /// A JPEG has more scans than the decode stage allows (`maxScans`): each is a pass over the image.
    case tooManyScans(origin: String, limit: Int)
    /// Decoding the image would take more memory than the decode stage's budget (`maxMemory`).
    case tooMuchMemory(origin: String, width: Int, height: Int, needed: Int, limit: Int)
    /// An operation on the image failed.
    case operationFailed(operation: String, message: String)
    /// Evaluating and encoding the image failed (not because of damage in the input).
    case encodeFailed(format: String, message: String)
    /// The input's bytes turned out damaged when their pixels were read, after `node` had read
    /// the header (libvips decodes lazily).
    case damaged(origin: String, message: String, node: String)
    /// libvips stopped on one of its internal checks (an assertion) while building the
    /// operation; the process survived, the item fails.
    case aborted(operation: String, check: String)
    /// The evaluation was stopped because the run was cancelled.
    case cancelled

    /// libjpeg's and GLib's words for a buffer the system refused.
    static func isMemory(_ message: String) -> Bool {
        message.contains("Insufficient memory") || message.contains("out of memory") || message.contains("Cannot allocate memory")
            // libwebp's words for a buffer it was refused.
            || message.contains("picture memory error")
    }

    /// A message about memory the system refused, with what to do about it (once).
    static func advised(_ message: String) -> String {
        guard isMemory(message), !message.contains(ProcessLimits.advice) else { return message }
        return message + " (" + ProcessLimits.advice + ")"
    }

    public var description: String {
        switch self {
        case .startFailed(let message):
            return "libvips could not start: \(message). Check that libvips (libvips42) is installed."
        case .decodeFailed(let origin, let message):
            return "Cannot decode \"\(origin)\": \(message). The file may be damaged or not an image."
        case .tooManyPixels(let origin, let width, let height, let limit):
            return "\"\(origin)\" is \(width)×\(height) (\(width * height / 1_000_000) MP), more than the limit of \(limit / 1_000_000) MP; raise the decode node's \"maxPixels\" if the image is trusted."
        case .tooManyScans(let origin, let limit):
            return "\"\(origin)\" is a JPEG of more than \(limit) scans, each a pass over the whole image (a progressive JPEG from a camera or an editor has about 10); raise the decode node's \"maxScans\" if the file is trusted."
        case .tooMuchMemory(let origin, let width, let height, let needed, let limit):
            return "\"\(origin)\" (\(width)×\(height), a progressive JPEG) needs \(needed >> 20) MiB to decode, more than the limit of \(limit >> 20) MiB; raise the decode node's \"maxMemory\" if the image is trusted."
        case .operationFailed(let operation, let message):
            return "libvips \(operation) failed: \(Self.advised(message))."
        case .damaged(let origin, let message, _):
            return "Cannot decode \"\(origin)\": \(message). The file is damaged (found when its pixels were read)."
        case .encodeFailed(let format, let message):
            return "Cannot encode \(format): \(Self.advised(message))."
        case .aborted(let operation, let check):
            let said = check.isEmpty ? "" : " (\(check))"
            return "libvips \(operation) stopped on an internal check\(said): an image of zero width or height, or values it cannot handle. The item failed; the run goes on."
        case .cancelled:
            return "Cancelled."
        }
    }
}

extension VipsError {
    /// The error for an abort the guard caught on this thread, with the check libvips named.
    static func aborted(operation: String) -> VipsError {
        // GLib's form is "**\nVIPS:ERROR:../libvips/iofuncs/generate.c:682:vips_image_generate:
        // assertion failed: (…)"; the function and the check are what a user can report.
        var text = String(cString: cvips_guard_message()).replacingOccurrences(of: "\n", with: " ")
            .trimmingCharacters(in: CharacterSet(charactersIn: "* ").union(.whitespacesAndNewlines))
        if let range = text.range(of: #"^[A-Z]+:[A-Z]+:[^ ]+:[0-9]+:"#, options: .regularExpression) { text.removeSubrange(range) }
        return .aborted(operation: operation, check: text)
    }
}

extension VipsError: BlamingError {
    /// Damage found while encoding belongs to the decode that read the bytes.
    public var blamedNode: String? {
        if case .damaged(_, _, let node) = self { return node }
        return nil
    }
}
