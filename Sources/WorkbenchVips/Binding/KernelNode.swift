import CKernel
import Synchronization
import CVips
import CVipsBridge
import WorkbenchCore
import WorkbenchKernels

/// Kernels as nodes of libvips' pipeline: the only caller of the C bridge (`cvips_kernel_node`).
///
/// The image streams through the kernel like through a built-in operation: libvips asks the
/// node for regions on its own threads when the image is finally evaluated (encoded), and the
/// node hands them to the kernel's C table. The same path runs built-in Swift kernels and,
/// through the same table, kernels from plugins.
extension VipsImage {
    /// This image through `kernel`. Formats other than 8-bit, 16-bit and float are cast to
    /// float for the kernel and back; grey images become sRGB first when the kernel wants
    /// colour. Cancelling `cancellation` stops the kernel at its next region.
    func applying(_ kernel: any Kernel, cancellation: CancellationToken?) throws(VipsError) -> VipsImage {
        try applying(table: KernelTable.make(kernel), name: kernel.name, colourBands: kernel.inputColourBands,
                     cancellation: cancellation)
    }

    /// This image through a kernel's C table; takes over the table's instance.
    func applying(table: wb_kernel, name: String, colourBands: Int, cancellation: CancellationToken?) throws(VipsError) -> VipsImage {
        let original = format
        let image: VipsImage
        do {
            image = try prepared(for: name, colourBands: colourBands)
        } catch {
            table.release?(table.instance)
            throw error
        }
        let made = try image.node(table, name: name, cancellation: cancellation)
        return made.format == original ? made : try made.cast(original)
    }

    /// This image in a form kernels take: 8-bit, 16-bit or float, 1–4 bands, colour if asked.
    private func prepared(for name: String, colourBands: Int) throws(VipsError) -> VipsImage {
        try checkSane(for: name)
        var image = self
        if ![VIPS_FORMAT_UCHAR, VIPS_FORMAT_USHORT, VIPS_FORMAT_FLOAT].contains(format) { image = try image.cast(VIPS_FORMAT_FLOAT) }
        let colour = image.hasAlpha ? image.bands - 1 : image.bands
        if colourBands == 3 && colour < 3 {
            image = try image.colourspace(image.format == VIPS_FORMAT_USHORT ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB)
        }
        guard image.bands <= 4 else {
            throw .operationFailed(operation: name, message: "the image has \(image.bands) bands; kernels take 1 to 4 (extract the bands you need first)")
        }
        return image
    }

    private func node(_ table: wb_kernel, name: String, cancellation: CancellationToken?) throws(VipsError) -> VipsImage {
        let watch = KernelCancellation(cancellation, origin: origin.map { ObjectIdentifier($0.bytes) })
        let context = Unmanaged.passRetained(watch).toOpaque()
        let closed: cvips_kernel_closed = { context in
            guard let context else { return }
            Unmanaged<KernelCancellation>.fromOpaque(context).release()
        }
        let failed: cvips_kernel_failed = { context, message in
            guard let context, let message,
                  let origin = Unmanaged<KernelCancellation>.fromOpaque(context).takeUnretainedValue().origin else { return }
            KernelFailures.record(String(cString: message), origin: origin)
        }
        var kernel = table
        var aborted: Int32 = 0
        let (made, message) = VipsErrorLog.call({
            cvips_guarded_kernel_node(pointer, &kernel, watch.flag, closed, failed, context, &aborted)
        }, failed: { $0 == nil })
        guard let made else {
            throw aborted != 0 ? VipsError.aborted(operation: name)
                : .operationFailed(operation: name, message: message ?? "libvips gave no message")
        }
        return VipsImage(owning: made, origin: origin, depth: depth + 1)
    }
}

/// The flag a kernel node checks between regions, raised when the node's cancellation token is
/// cancelled. Lives as long as the node's image (released by the bridge when it closes).
private final class KernelCancellation: @unchecked Sendable {
    // Safe: `flag` is written by cvips_raise_flag and read by the bridge, both with C atomics;
    // `key` is set once in init and read in deinit.
    let flag: UnsafeMutablePointer<Int32>
    /// The item's decoded bytes, under whose identity a kernel failure is recorded.
    let origin: ObjectIdentifier?
    private let token: CancellationToken?
    private var key: Int?

    init(_ token: CancellationToken?, origin: ObjectIdentifier?) {
        self.token = token
        self.origin = origin
        let flag = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        flag.initialize(to: 0)
        self.flag = flag
        let address = UInt(bitPattern: flag)
        key = token?.onCancel {
            // The handler is removed before the flag is freed (deinit), so the address is live.
            cvips_raise_flag(UnsafeMutablePointer(bitPattern: address))
        }
    }

    deinit {
        token?.removeHandler(key)
        flag.deallocate()
    }
}

/// The last kernel failure in each item's pipeline, by its decoded bytes: libvips' error buffer
/// is shared by every thread, so an encode that fails reads its own kernel's words here instead
/// of whatever other items logged meanwhile.
enum KernelFailures {
    private static let failures = Mutex<[ObjectIdentifier: String]>([:])

    static func record(_ message: String, origin: ObjectIdentifier) {
        failures.withLock { $0[origin] = message }
    }

    /// The failure recorded for `origin`, forgotten once read.
    static func take(origin: DecodedSource?) -> String? {
        guard let origin else { return nil }
        return failures.withLock { $0.removeValue(forKey: ObjectIdentifier(origin.bytes)) }
    }
}
