import CKernel
import Glibc
import Synchronization
import WorkbenchCore
import WorkbenchKernels

/// A plugin's shared library, loaded (`RTLD_NOW | RTLD_LOCAL`) and checked against its manifest.
/// Never unloaded: code from it may still be referenced by images being evaluated.
final class PluginLibrary: Sendable {
    /// The plugin table version this workbench runs (`WB_PLUGIN_API_VERSION`).
    static let apiVersion = Int(WB_PLUGIN_API_VERSION)

    let manifest: PluginManifest
    /// The table's address (`wb_plugin`): immutable, and lives as long as the process.
    private let table: UInt

    private static let loaded = Mutex<[String: PluginLibrary]>([:])

    /// The library of `manifest`, loaded once per process.
    static func load(_ manifest: PluginManifest) throws(PluginError) -> PluginLibrary {
        let result: Result<PluginLibrary, PluginError> = loaded.withLock { libraries in
            if let library = libraries[manifest.libraryPath] { return .success(library) }
            do throws(PluginError) {
                let library = try PluginLibrary(manifest)
                libraries[manifest.libraryPath] = library
                return .success(library)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private init(_ manifest: PluginManifest) throws(PluginError) {
        self.manifest = manifest
        func refuse(_ reason: String) -> PluginError { .refused(plugin: manifest.name, folder: manifest.folder, reason: reason) }
        let path = manifest.libraryPath
        guard access(path, R_OK) == 0 else {
            throw refuse("its library \(manifest.library) is not in \(manifest.folder) (build and install it: workbench plugin build)")
        }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            throw refuse("its library cannot be loaded: " + (dlerror().map { String(cString: $0) } ?? "no reason given"))
        }
        guard let symbol = dlsym(handle, WB_PLUGIN_ENTRY) else {
            throw refuse("its library has no entry point \"\(WB_PLUGIN_ENTRY)\" (export it: @_cdecl(\"\(WB_PLUGIN_ENTRY)\") returning Plugin.export(…))")
        }
        let entry = unsafeBitCast(symbol, to: wb_plugin_entry.self)
        guard let plugin = entry() else { throw refuse("its entry point \"\(WB_PLUGIN_ENTRY)\" returned no table") }
        try Self.check(plugin.pointee, against: manifest, refuse)
        table = UInt(bitPattern: plugin)
    }

    /// What the table must agree on with the manifest and with this host.
    static func check(_ plugin: wb_plugin, against manifest: PluginManifest, _ refuse: (String) -> PluginError) throws(PluginError) {
        guard plugin.api_version == WB_PLUGIN_API_VERSION, plugin.kernel_api_version == WB_KERNEL_API_VERSION else {
            throw refuse("it was built for plugin API \(plugin.api_version) (kernel API \(plugin.kernel_api_version)); this workbench runs \(WB_PLUGIN_API_VERSION) (\(WB_KERNEL_API_VERSION)): rebuild it against this workbench's kit")
        }
        // A library that links no Swift (C, Rust, …) declares no toolchain: nothing of Swift is
        // shared with it. One that links Swift's runtime must have been built by this Swift.
        let toolchain = plugin.toolchain.map { String(cString: $0) } ?? ""
        if toolchain.isEmpty {
            switch LibraryDependencies.linksSwiftRuntime(manifest.libraryPath) {
            case false?: break
            case true?:
                throw refuse("its library links Swift's runtime but declares no toolchain: build it with this workbench's kit (workbench plugin build), whose export declares it")
            case nil:
                throw refuse("its library \(manifest.library) is not a 64-bit ELF shared library this workbench can read")
            }
        } else if toolchain != Toolchain.current {
            throw refuse("it was built with \(toolchain), this workbench with \(Toolchain.current): rebuild it with this toolchain (workbench plugin build)")
        }
        let name = plugin.name.map { String(cString: $0) } ?? ""
        guard name == manifest.name else {
            throw refuse("its library calls itself \"\(name)\" but plugin.json says \"\(manifest.name)\"")
        }
        let exported = (0..<Int(max(plugin.filter_count, 0))).map { plugin.filters[$0].name.map { String(cString: $0) } ?? "" }
        let declared = manifest.filters.filter { $0.graph == nil }.map(\.name)
        let missing = declared.filter { !exported.contains($0) }, extra = exported.filter { !declared.contains($0) }
        guard missing.isEmpty, extra.isEmpty else {
            throw refuse("plugin.json and the library disagree: " + (missing.isEmpty ? "" : "declared but not exported: \(missing.joined(separator: ", "))")
                + (missing.isEmpty || extra.isEmpty ? "" : "; ") + (extra.isEmpty ? "" : "exported but not declared: \(extra.joined(separator: ", "))"))
        }
    }

    /// A kernel of `filter` for these values, made by the plugin.
    func makeKernel(_ filter: PluginManifest.FilterDeclaration, _ values: ParameterValues) throws(PluginError) -> wb_kernel {
        let plugin = UnsafePointer<wb_plugin>(bitPattern: table)!.pointee
        guard let entry = (0..<Int(plugin.filter_count)).map({ plugin.filters[$0] })
            .first(where: { $0.name.map { String(cString: $0) } == filter.name }), let make = entry.make else {
            throw .refused(plugin: manifest.name, folder: manifest.folder, reason: "its library has no filter \"\(filter.name)\"")
        }
        var kernel = wb_kernel()
        var message = [CChar](repeating: 0, count: 1024)
        let status = CParameters(filter.parameters, values).withUnsafeParameters { params, count in
            make(entry.context, params, count, &kernel, &message, message.count)
        }
        guard status == 0 else {
            throw .helperFailed(plugin: manifest.name, filter: filter.name, reason: messageText(message))
        }
        return kernel
    }
}
