import CVips
import CVipsBridge
import Glibc
import Logging
import Synchronization
import WorkbenchCore

/// Process-wide libvips set-up, done once before the first image is touched.
public enum VipsRuntime {
    /// Workers × libvips threads must not oversubscribe the cores: items run in parallel on the
    /// worker pool, so each evaluation gets one libvips thread (JPEG decoding is serial anyway).
    static let threadsPerEvaluation: Int32 = 1

    /// Splits the cores between items and libvips' threads for a run of `items` items on
    /// `workers` workers: fewer items than workers leave cores to each evaluation (one huge image
    /// gets them all). Does nothing when VIPS_CONCURRENCY is set in the environment.
    /// Takes effect when libvips starts, or at once if it has (a run without images never starts it).
    public static func shareCores(workers: Int, items: Int) {
        let threads = Int32(items > 0 && items < workers ? workers / items : 1)
        let started = evaluationThreads.withLock { state -> Bool in
            state.threads = threads
            return state.started
        }
        if started { applyEvaluationThreads() }
    }

    private static let evaluationThreads = Mutex((threads: threadsPerEvaluation, started: false))

    private static func applyEvaluationThreads() {
        // VIPS_CONCURRENCY in the environment (libvips' own variable) overrides the split.
        guard getenv("VIPS_CONCURRENCY") == nil else { return }
        vips_concurrency_set(evaluationThreads.withLock { $0.threads })
    }
    /// No operation cache: every file of a batch is new (10 measured no faster on W), and an
    /// operation the cache let go of would be disposed on whichever thread built the next one,
    /// outside `VipsRelease` (its orc programs freed beside another worker's). It is never
    /// flushed with `vips_cache_drop_all()`, which makes later operations crash in libvips 8.14.
    static let cachedOperations: Int32 = 0
    /// glibc's per-thread malloc arenas fragment under libvips and make RSS grow with the length
    /// of a run (glibc makes up to eight per core): one per core. One per two cores kept W's peak
    /// a little flatter (2 cores: 72 → 77 MiB from 25 to 2,500 photos, against 72 → 82), but on
    /// small images the workers then wait for each other in malloc and free — 1,900 of 7,500
    /// thread switches for 10,000 items — and run 5% slower (0.93–1.0 → 0.85–0.96 s).
    static let mallocArenas = Int32(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    /// Buffers of 1 MiB and more (libvips' regions and line buffers, input bytes, decoded
    /// images) get their own mappings, returned to the system when freed, instead of staying in
    /// the heap: −40 MiB of W's peak at 1 MiB when first measured. It was 256 KiB (−4 MiB more
    /// then), but every encoder's scratch buffer of that size then cost its page faults again on
    /// each image: 150 product PNGs to WebP made 540,000 faults and spent a quarter of their
    /// CPU in the kernel. At 1 MiB, with `mallocTrimThreshold`, 190,000, and W's peak the same
    /// (medians of 5: 96 MiB at 10× either way), since the encode trims the heap after each
    /// large photo (`EncodeStage`).
    static let mallocMmapThreshold: Int32 = 1 << 20
    /// Free memory at the heap's top is given back only beyond this: glibc's 128 KiB, which
    /// applies once the mmap threshold is set, gave back and faulted in again what every small
    /// image's encode allocates.
    static let mallocTrimThreshold: Int32 = 4 << 20

    /// The stack of each thread under an address-space limit (see `tuneMemory`). libvips' and our
    /// threads run in it (the test suite and the reference workload were run with it).
    static let limitedThreadStack = 1 << 20

    /// Bounds glibc's malloc for libvips (see `mallocArenas`). Call it first thing in `main`,
    /// before threads exist; starting libvips calls it too, later, for library users.
    /// glibc's own MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ in the environment win.
    public static func tuneMemory() {
        // mallopt fails only for an unknown parameter; these two exist in every glibc we run on,
        // and failing would only leave glibc's defaults.
        let limited = ProcessLimits.addressSpace != nil
        // Under an address-space limit every reservation counts: each malloc arena beyond the
        // first reserves 64 MiB, each thread's stack 8 MiB (the stack limit) — ten threads and
        // two arenas were 144 MiB of a 300 MiB limit before a pixel was decoded.
        if getenv("MALLOC_ARENA_MAX") == nil { _ = cvips_set_malloc_arena_max(limited ? 1 : mallocArenas) }
        if limited { _ = cvips_set_default_thread_stack(limitedThreadStack) }
        if getenv("MALLOC_MMAP_THRESHOLD_") == nil { _ = cvips_set_malloc_mmap_threshold(mallocMmapThreshold) }
        if getenv("MALLOC_TRIM_THRESHOLD_") == nil { _ = cvips_set_malloc_trim_threshold(mallocTrimThreshold) }
    }

    /// Gives free heap pages back to the system once more than `bytes` are free (glibc's
    /// `malloc_trim`); whether some were.
    @discardableResult
    static func releaseFreeHeap(over bytes: Int) -> Bool { cvips_release_free_heap(bytes) == 1 }

    /// Sends what libvips prints with C's stdio (diagnostics such as "sanity failure: …") to
    /// standard error, for programs whose standard output is a report written to descriptor 1
    /// directly. Swift's `print` goes there too afterwards.
    public static func sendLibraryPrintsToStandardError() {
        printsGoToStandardError.withLock { $0 = true }
        cvips_send_stdio_output_to_stderr()
    }

    private static let printsGoToStandardError = Mutex(false)

    /// Where libvips' warnings go: the CLI logs them (at debug level, `--verbose` shows them).
    public static let warnings = Mutex<Logger?>(nil)

    private static let startResult: String? = {
        tuneMemory()
        cvips_install_abort_guard()
        // A program that sent libvips' prints to standard error keeps them there.
        if !printsGoToStandardError.withLock({ $0 }) { cvips_filter_stdio_output(0) }
        cvips_route_warnings { message, isWarning in
            let text = message.map { String(cString: $0) } ?? ""
            if isWarning != 0 { VipsErrorLog.warn(text) }
            VipsRuntime.warnings.withLock { $0 }?.debug("libvips: \(text)")
        }
        // Modules come in as operations need them (`VipsModules`).
        if cvips_start_without_modules("workbench") != 0 {
            return VipsImage.takeErrorMessage()
        }
        evaluationThreads.withLock { $0.started = true }
        applyEvaluationThreads()
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
            // Without libvips there is nothing to block; its start-up failure is said where an
            // operation is called (`VipsError.startFailed`) or listed (`VipsOps.moduleFailures`).
            if (try? start()) != nil { applyUntrustedBlock() }
        }
    }

    /// Blocks (or unblocks) libvips' untrusted operations as `untrustedOperationsAllowed`
    /// says, including those of modules loaded since.
    static func applyUntrustedBlock() {
        cvips_block_untrusted(untrusted.withLock { $0 } ? 0 : 1)
    }

    /// Why libvips could not start (starting it now if it has not yet); nil when it runs.
    static var startFailure: String? { startResult }

    /// Starts libvips if it is not running yet.
    static func start() throws(VipsError) {
        if let message = startResult { throw .startFailed(message) }
    }

    /// The libvips version, e.g. "8.14.1".
    public static var version: String { String(cString: vips_version_string()) }
}
