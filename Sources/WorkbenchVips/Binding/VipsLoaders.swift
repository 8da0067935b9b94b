import CVips
import Foundation
import WorkbenchCore

/// Which libvips loader reads some bytes, and what to tell the user when none will.
enum VipsLoaders {
    /// The buffer loader libvips would choose for these bytes, e.g. "gifload_buffer".
    static func name(_ bytes: Bytes) -> String? {
        if let known = FormatSniffer.loader(for: bytes.data) { return known }
        VipsModules.loadAll()
        // libvips answers with the loader's type name (VipsForeignLoadNsgifBuffer), not its nickname.
        let (typeName, _) = VipsErrorLog.call(exclusive: true, {
            bytes.data.withUnsafeBytes { buffer in vips_foreign_find_load_buffer(buffer.baseAddress, buffer.count) }
        }, failed: { $0 == nil })
        guard let typeName, let nick = vips_nickname_find(g_type_from_name(typeName)) else { return nil }
        return String(cString: nick)
    }

    /// The message for bytes libvips would not open: says when a blocked untrusted loader
    /// would have read them, and how to allow it.
    static func explain(_ bytes: Bytes, message: String?) -> String {
        let base = message ?? "libvips gave no message"
        guard !VipsRuntime.untrustedOperationsAllowed else { return base }
        let advice = "blocked as untrusted: libvips does not harden that loader against hostile files; allow untrusted loaders (--allow-untrusted) only for files you trust"
        if base.contains("operation is blocked") { return "\(base) (\(advice))" }
        // ImageMagick's loader claims nearly anything, so it is no evidence.
        let candidates = VipsIntrospection.operations.values.filter {
            $0.isUntrusted && $0.nickname.hasSuffix("load_buffer") && !$0.nickname.hasPrefix("magick")
        }
        for loader in candidates.sorted(by: { $0.nickname < $1.nickname }) {
            let (recognised, _) = VipsErrorLog.call(exclusive: true, {
                bytes.data.withUnsafeBytes { buffer in
                    vips_foreign_is_a_buffer(loader.nickname, buffer.baseAddress, buffer.count) != 0
                }
            }, failed: { _ in false })
            if recognised { return "\(base) (it looks like a file for \(loader.nickname), \(advice))" }
        }
        return base
    }
}
