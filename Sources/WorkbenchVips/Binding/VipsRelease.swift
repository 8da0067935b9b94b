import Foundation

/// libvips objects let go one at a time. Disposing an operation frees its orc programs
/// (`vips_vector_free` → `orc_program_free`), and liborc 0.4.33's code allocator does not take
/// two frees at once: two workers releasing their pipelines together crashed the process about
/// once in 60 runs of 2,500 small JPEGs (SIGSEGV in `orc_code_free`, both workers in
/// `g_object_unref`). Recursive: a disposal can release Swift objects that hold images.
enum VipsRelease {
    private static let lock = NSRecursiveLock()

    static func run(_ body: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body()
    }
}
