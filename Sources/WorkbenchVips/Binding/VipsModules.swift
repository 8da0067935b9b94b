import CVips
import CVipsBridge
import Synchronization

/// libvips' loadable modules, each loaded the first time an operation of its needs it.
///
/// `vips_init` loads every module it finds: in Debian's libvips 8.14 that is HEIF/AVIF, JPEG XL,
/// PDF, OpenSlide and ImageMagick, ~35 ms of dynamic linking and ~8 MiB of libraries per process,
/// which a JPEG thumbnail run never touches. libvips starts without them (`VipsRuntime`) and an
/// operation named here brings its module in; listing every operation brings in all.
enum VipsModules {
    /// Module name (the file is `vips-NAME.so`) and the nickname prefixes of its operations.
    static let known: [(name: String, operations: [String])] = [
        ("heif", ["heifload", "heifsave"]),
        ("jxl", ["jxlload", "jxlsave"]),
        ("poppler", ["pdfload"]),
        ("openslide", ["openslideload"]),
        ("magick", ["magickload", "magicksave"]),
    ]

    private struct State {
        /// Modules tried, loaded or not: each is tried once.
        var tried: Set<String> = []
        var all = false
        /// Bumped whenever a module adds operations, so what was read of libvips' operations
        /// (the savers `encode` offers) can be read again.
        var generation = 0
        /// What each module that did not load said, in the order they were tried.
        var failures: [String] = []
    }

    private static let state = Mutex(State())

    /// How many times modules have added operations; 0 until one has.
    static var generation: Int { state.withLock { $0.generation } }

    /// "libvips module NAME did not load: REASON" for each module that failed: a listing of
    /// operations lacks theirs, so commands that list say so.
    static var failures: [String] { state.withLock { $0.failures } }

    /// Whether every module has been tried.
    static var allTried: Bool { state.withLock { $0.all } }

    /// The module that provides operation `nick`, if one does.
    static func module(forOperation nick: String) -> String? {
        known.first { module in module.operations.contains { nick.hasPrefix($0) } }?.name
    }

    /// The folder modules are loaded from, once libvips has started.
    static var folder: String? { cvips_module_folder().map { String(cString: $0) } }

    /// Why operation `nick` is missing when a module should bring it: which module, where it was
    /// looked for and what the module folder depends on; nil for operations of libvips itself.
    static func absence(ofOperation nick: String) -> String? {
        guard let name = module(forOperation: nick) else { return nil }
        let formats = ["heif": "HEIF and AVIF", "jxl": "JPEG XL", "poppler": "PDF", "openslide": "OpenSlide", "magick": "ImageMagick's formats"][name] ?? name
        let failure = failures.first { $0.hasPrefix("libvips module \(name) ") }
        let place = folder.map { "vips-\(name).so in \($0)" } ?? "vips-\(name).so (libvips' module folder was not found)"
        return "\(formats) come from a libvips module, " + (failure ?? "\(place), which is not there")
            + " (Debian's libvips42 package installs them; $VIPSHOME/lib/vips-modules-* is looked in first when it exists)"
    }

    /// Loads the module providing `nick`; true when that added operations.
    @discardableResult
    static func load(forOperation nick: String) -> Bool {
        guard let name = module(forOperation: nick) else { return false }
        return load(name)
    }

    /// Loads every module (for listing all operations, or bytes no known loader claims).
    static func loadAll() {
        guard !allTried else { return }
        for module in known { load(module.name) }
        state.withLock { $0.all = true }
    }

    /// Loads module `name` once; true when it was loaded now.
    @discardableResult
    static func load(_ name: String) -> Bool {
        // No module loads without libvips; `VipsOps.moduleFailures` says why it did not start.
        guard (try? VipsRuntime.start()) != nil else { return false }
        return state.withLock { state -> Bool in
            guard state.tried.insert(name).inserted else { return false }
            var message: UnsafePointer<CChar>?
            switch cvips_load_module(name, &message) {
            case 0:
                state.generation += 1
                // libvips blocks untrusted operations by walking the classes that exist: the
                // module's new ones must be blocked too.
                VipsRuntime.applyUntrustedBlock()
                return true
            case 1:
                return false
            default:
                // libvips itself only warns when a module fails to load, and goes on.
                let text = "libvips module \(name) did not load: " + (message.map { String(cString: $0) } ?? "no reason given")
                state.failures.append(text)
                VipsRuntime.warnings.withLock { $0 }?.warning("\(text)")
                return false
            }
        }
    }
}
