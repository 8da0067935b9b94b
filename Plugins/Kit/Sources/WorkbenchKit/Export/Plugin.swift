import CKernel
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a plugin library exports: its name and filters, as the C table the host reads
/// (`wb_plugin` in `workbench_kernel.h`). A plugin's one entry point returns `Plugin.export(…)`:
///
/// ```swift
/// @_cdecl("workbench_plugin")
/// public func workbenchPlugin() -> UnsafeRawPointer {
///     Plugin.export(name: "glow", filters: [
///         Plugin.Filter("soften") { p in Soften(amount: try p.number("amount")) },
///     ])
/// }
/// ```
public enum Plugin {
    /// The plugin table's version this kit builds (`WB_PLUGIN_API_VERSION`).
    public static let apiVersion = Int(WB_PLUGIN_API_VERSION)

    /// One filter: its name (as in `plugin.json`) and how to make its kernel from parameter values.
    public struct Filter: Sendable {
        public let name: String
        /// Throws a `KernelError` (or any error) when the values cannot make a kernel; the item
        /// fails with its message.
        public let make: @Sendable (KernelParameters) throws -> any Kernel

        public init(_ name: String, make: @escaping @Sendable (KernelParameters) throws -> any Kernel) {
            self.name = name
            self.make = make
        }
    }

    /// The table, built on the first call and kept for the life of the process (later calls
    /// return the same table).
    public static func export(name: String, filters: [Filter]) -> UnsafeRawPointer {
        exported.withLock { table in
            if let table { return UnsafeRawPointer(bitPattern: table)! }
            let made = UInt(bitPattern: build(name: name, filters: filters))
            table = made
            return UnsafeRawPointer(bitPattern: made)!
        }
    }

    /// The address of the table, once built.
    private static let exported = Mutex<UInt?>(nil)

    /// Allocates the table and everything it points to; never freed (plugins are never unloaded).
    private static func build(name: String, filters: [Filter]) -> UnsafeRawPointer {
        let entries = UnsafeMutablePointer<wb_filter>.allocate(capacity: max(filters.count, 1))
        for (i, filter) in filters.enumerated() {
            var entry = wb_filter()
            entry.name = UnsafePointer(strdup(filter.name))
            entry.context = Unmanaged.passRetained(FilterBox(filter)).toOpaque()
            entry.make = make
            (entries + i).initialize(to: entry)
        }
        let table = UnsafeMutablePointer<wb_plugin>.allocate(capacity: 1)
        var plugin = wb_plugin()
        plugin.api_version = UInt32(WB_PLUGIN_API_VERSION)
        plugin.kernel_api_version = UInt32(WB_KERNEL_API_VERSION)
        plugin.toolchain = UnsafePointer(strdup(Toolchain.current))
        plugin.name = UnsafePointer(strdup(name))
        plugin.filter_count = Int32(filters.count)
        plugin.filters = UnsafePointer(entries)
        table.initialize(to: plugin)
        return UnsafeRawPointer(table)
    }

    private static let make: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<wb_param>?, Int32, UnsafeMutablePointer<wb_kernel>?,
                                              UnsafeMutablePointer<CChar>?, Int) -> Int32 = { context, params, count, kernel, message, capacity in
        guard let context, let kernel else { return 1 }
        let filter = Unmanaged<FilterBox>.fromOpaque(context).takeUnretainedValue().filter
        do {
            kernel.pointee = KernelTable.make(try filter.make(KernelParameters(params, count: Int(count))))
            return 0
        } catch let error as KernelError {
            KernelTable.write(error.message, to: message, capacity: capacity)
            return 1
        } catch {
            KernelTable.write("\(error)", to: message, capacity: capacity)
            return 1
        }
    }
}

private final class FilterBox: Sendable {
    let filter: Plugin.Filter
    init(_ filter: Plugin.Filter) { self.filter = filter }
}
