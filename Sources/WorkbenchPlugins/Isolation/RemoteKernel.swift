import Foundation
import WorkbenchCore
import WorkbenchKernels

/// A plugin kernel run by a helper process: each libvips thread leases a helper (its scratch),
/// opens the kernel there for the image, and for every region copies the input into shared
/// memory, asks the helper to process it, and copies the output back.
struct RemoteKernel: Kernel {
    let pool: HelperPool
    let manifest: PluginManifest
    let filter: String
    let values: [String: WireValue]
    let item: String
    let margin: Int
    let inputColourBands: Int
    let outputColourBands: Int
    let cancellation: CancellationToken?

    var name: String { "\(manifest.name).\(filter)" }

    func makeScratch(for image: KernelImage) throws(KernelError) -> AnyObject? {
        let channel: HelperChannel
        do throws(PluginError) {
            channel = try pool.lease(manifest)
        } catch {
            throw KernelError("\(error) (item \(item))")
        }
        let wireImage = WireImage(width: Int32(image.width), height: Int32(image.height), bands: Int32(image.bands),
                                  hasAlpha: image.hasAlpha ? 1 : 0, format: image.format.rawValue, max: image.max)
        let lease = HelperLease(pool: pool, channel: channel, kernel: self)
        try lease.call(.open(filter: filter, values: values, image: wireImage))
        lease.isOpen = true
        return lease
    }

    func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        guard let lease = scratch as? HelperLease else { throw KernelError("\(name): no helper for this thread") }
        try lease.process(region, image: image)
    }

    /// Output colour bands (plus alpha) for `image`.
    func outputBands(_ image: KernelImage) -> Int {
        outputColourBands == 0 ? image.bands : outputColourBands + (image.hasAlpha ? 1 : 0)
    }
}

/// One thread's helper for one image: closed and given back (or ended, if it failed) when
/// libvips lets go of the thread's state.
final class HelperLease {
    let pool: HelperPool
    let channel: HelperChannel
    let kernel: RemoteKernel
    var isOpen = false
    private var broken = false

    init(pool: HelperPool, channel: HelperChannel, kernel: RemoteKernel) {
        self.pool = pool
        self.channel = channel
        self.kernel = kernel
    }

    func call(_ request: HelperRequest) throws(KernelError) {
        guard !broken else { throw KernelError("\(kernel.name): the helper failed earlier on this image (item \(kernel.item))") }
        let reply: HelperReply
        do throws(HelperChannel.Failure) {
            let cancellation = kernel.cancellation, pool = pool
            reply = try channel.call(request, seconds: pool.limits.regionSeconds,
                                     cancelled: { cancellation?.isCancelled == true || pool.isCancelled })
        } catch {
            broken = true
            var counts = true
            if case .cancelled = error { counts = false }
            pool.discard(channel, counts: counts)
            throw KernelError("plugin \(kernel.manifest.name), filter \(kernel.filter), item \(kernel.item): the helper process \(HelperPool.describe(error))")
        }
        switch reply {
        case .done, .described, .ready: return
        case .failed(let message): throw KernelError("plugin \(kernel.manifest.name), filter \(kernel.filter): \(message)")
        }
    }

    func process(_ region: KernelRegion, image: KernelImage) throws(KernelError) {
        let sample = image.format == .uint8 ? 1 : image.format == .uint16 ? 2 : 4
        let margin = kernel.margin
        let inputRow = (region.width + 2 * margin) * image.bands * sample, rows = region.height + 2 * margin
        let outputRow = region.width * kernel.outputBands(image) * sample
        let inputSize = inputRow * rows, outputOffset = (inputSize + 63) / 64 * 64
        let memory: UnsafeMutableRawPointer
        do throws(HelperChannel.Failure) {
            memory = try channel.reserve(outputOffset + outputRow * region.height)
        } catch {
            throw KernelError("plugin \(kernel.manifest.name): \(HelperPool.describe(error))")
        }
        for y in 0..<rows {
            (memory + y * inputRow).copyMemory(from: region.inputRow(y - margin, as: UInt8.self), byteCount: inputRow)
        }
        try call(.process(WireRegion(left: Int32(region.left), top: Int32(region.top), width: Int32(region.width),
                                     height: Int32(region.height), inputStride: inputRow, outputStride: outputRow,
                                     outputOffset: outputOffset, memorySize: channel.mappedSize)))
        for y in 0..<region.height {
            region.outputRow(y, as: UInt8.self).update(from: (memory + outputOffset + y * outputRow).assumingMemoryBound(to: UInt8.self),
                                                       count: outputRow)
        }
    }

    deinit {
        guard !broken else { return }
        // A helper that does not answer close is not given back to the pool: the pool starts a fresh one.
        if isOpen, (try? call(.close)) == nil { return }
        pool.giveBack(channel)
    }
}
