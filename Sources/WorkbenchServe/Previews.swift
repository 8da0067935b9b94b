import Foundation
import Synchronization
import WorkbenchVips

/// Small JPEGs of inputs and outputs for the page, made once per file version and kept (up to
/// a few hundred), made off the server's threads.
final class Previews: Sendable {
    private let cache = Mutex<[String: Data]>([:])
    static let size = 320

    func jpeg(ofFile path: String) async -> Data? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let key = "\(path)@\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec):\(info.st_size)"
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let made: Data? = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: VipsImage.preview(ofFile: path, size: Self.size)) }
        }
        if let made {
            cache.withLock { cache in
                if cache.count > 500 { cache.removeAll() }
                cache[key] = made
            }
        }
        return made
    }
}
