import CKernel

/// The C table a host calls a kernel through (`wb_kernel`): what `KernelTable.make` returns,
/// named so a host's Swift need not import the C contract to hand one on.
public typealias CKernelTable = wb_kernel

/// A Swift kernel behind the C contract: the table the host calls (`wb_kernel`), whose instance
/// pointer holds the kernel. Built-in kernels are exported this way, and plugin kernels will be
/// exported the same way from their own libraries.
public enum KernelTable {
    /// A table for `kernel`. The caller owns the instance it holds: hand the table to a host
    /// that calls `release` once, or call `release(table)` yourself.
    public static func make(_ kernel: any Kernel) -> CKernelTable {
        let box = KernelBox(kernel)
        var table = wb_kernel()
        table.api_version = UInt32(WB_KERNEL_API_VERSION)
        table.name = UnsafePointer(box.name)
        table.margin = Int32(kernel.margin)
        table.input_colour_bands = Int32(kernel.inputColourBands)
        table.output_colour_bands = Int32(kernel.outputColourBands)
        table.instance = Unmanaged.passRetained(box).toOpaque()
        table.start = start
        table.process = process
        table.stop = stop
        table.release = release
        return table
    }

    /// Lets go of a table's instance that no host took over.
    public static func release(_ table: wb_kernel) {
        table.release?(table.instance)
    }

    private static let start: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<wb_image_info>?,
                                              UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                              UnsafeMutablePointer<CChar>?, Int) -> Int32 = { instance, info, state, message, capacity in
        guard let instance, let info, let state else { return 1 }
        let box = Unmanaged<KernelBox>.fromOpaque(instance).takeUnretainedValue()
        guard let image = KernelImage(info.pointee) else {
            write("the host gave an unknown sample format", to: message, capacity: capacity)
            return 1
        }
        do throws(KernelError) {
            state.pointee = try box.kernel.makeScratch(for: image).map { Unmanaged.passRetained($0).toOpaque() }
            return 0
        } catch {
            write(error.message, to: message, capacity: capacity)
            return 1
        }
    }

    private static let process: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafePointer<wb_image_info>?,
                                                UnsafePointer<wb_region>?, UnsafeMutablePointer<CChar>?, Int) -> Int32 = {
        instance, state, info, region, message, capacity in
        guard let instance, let info, let region, let input = region.pointee.in, let output = region.pointee.out else { return 1 }
        let box = Unmanaged<KernelBox>.fromOpaque(instance).takeUnretainedValue()
        guard let image = KernelImage(info.pointee) else {
            write("the host gave an unknown sample format", to: message, capacity: capacity)
            return 1
        }
        let r = region.pointee
        let area = KernelRegion(left: Int(r.left), top: Int(r.top), width: Int(r.width), height: Int(r.height),
                                margin: box.kernel.margin, input: input, inputStride: r.in_stride,
                                output: output, outputStride: r.out_stride)
        let scratch = state.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
        do throws(KernelError) {
            try box.kernel.process(area, image: image, scratch: scratch)
            return 0
        } catch {
            write(error.message, to: message, capacity: capacity)
            return 1
        }
    }

    private static let stop: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, state in
        guard let state else { return }
        Unmanaged<AnyObject>.fromOpaque(state).release()
    }

    private static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
        guard let instance else { return }
        Unmanaged<KernelBox>.fromOpaque(instance).release()
    }

    static func write(_ text: String, to buffer: UnsafeMutablePointer<CChar>?, capacity: Int) {
        guard let buffer, capacity > 0 else { return }
        let bytes = Array(text.utf8.prefix(capacity - 1))
        for (i, byte) in bytes.enumerated() { buffer[i] = CChar(bitPattern: byte) }
        buffer[bytes.count] = 0
    }
}

/// What a table's instance pointer holds: the kernel, and its name as C text for the host.
private final class KernelBox {
    let kernel: any Kernel
    let name: UnsafeMutablePointer<CChar>

    init(_ kernel: any Kernel) {
        self.kernel = kernel
        let text = Array(kernel.name.utf8CString)
        name = .allocate(capacity: text.count)
        name.initialize(from: text, count: text.count)
    }

    deinit { name.deallocate() }
}
