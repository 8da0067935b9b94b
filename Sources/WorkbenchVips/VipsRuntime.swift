import CVips
import Synchronization

/// Process-wide libvips set-up, done once before the first image is touched.
public enum VipsRuntime {
    /// Workers × libvips threads must not oversubscribe the cores: items run in parallel on the
    /// worker pool, so each evaluation gets one libvips thread (JPEG decoding is serial anyway).
    static let threadsPerEvaluation: Int32 = 1
    /// A small operation cache: every file of a batch is new, so a large cache only holds memory.
    static let cachedOperations: Int32 = 10
    /// glibc's per-thread malloc arenas fragment under libvips and make RSS grow; two suffice.
    static let mallocArenas: Int32 = 2

    private static let startResult: String? = {
        _ = cvips_set_malloc_arena_max(mallocArenas)
        if vips_init("workbench") != 0 {
            return VipsImage.takeErrorMessage()
        }
        vips_concurrency_set(threadsPerEvaluation)
        vips_cache_set_max(cachedOperations)
        cvips_block_untrusted(untrusted.withLock { $0 } ? 0 : 1)
        return nil
    }()

    private static let untrusted = Mutex(false)

    /// Whether operations libvips marks untrusted (loaders and savers not hardened against
    /// hostile files: ImageMagick, PDF, SVG, FITS, …) may run. Off by default; turn it on only
    /// for files you trust.
    public static var untrustedOperationsAllowed: Bool {
        get { untrusted.withLock { $0 } }
        set {
            untrusted.withLock { $0 = newValue }
            if (try? start()) != nil { cvips_block_untrusted(newValue ? 0 : 1) }
        }
    }

    /// Starts libvips if it is not running yet.
    static func start() throws(VipsError) {
        if let message = startResult { throw .startFailed(message) }
    }

    /// The libvips version, e.g. "8.14.1".
    static var version: String { String(cString: vips_version_string()) }
}
