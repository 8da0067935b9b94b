import Foundation
import Glibc
import WorkbenchCore

extension HelperServer {
    /// The helper's answers to the host's requests: the kernel opened on this helper, if any,
    /// and the shared memory as last mapped.
    struct Session {
        private var kernel: KernelSession
        private var mapping: UnsafeMutableRawPointer?
        private var mappedSize = 0

        init(library: PluginLibrary) { kernel = KernelSession(library: library) }

        mutating func handle(_ request: HelperRequest) -> HelperReply {
            switch request {
            case .describe(let name, let values):
                guard let filter = kernel.library.manifest.filters.first(where: { $0.name == name }) else { return .failed("no filter \"\(name)\"") }
                do {
                    let shape = try kernel.describe(filter, WireValue.decode(values))
                    return .described(margin: shape.margin, inputColourBands: shape.inputColourBands, outputColourBands: shape.outputColourBands)
                } catch {
                    return .failed("\(error)")
                }
            case .open(let name, let values, let wire):
                kernel.close()
                guard let filter = kernel.library.manifest.filters.first(where: { $0.name == name }) else { return .failed("no filter \"\(name)\"") }
                do {
                    if let failure = try kernel.open(filter, WireValue.decode(values), width: wire.width, height: wire.height, bands: wire.bands,
                                                     hasAlpha: wire.hasAlpha, format: wire.format, max: wire.max) {
                        return .failed(failure)
                    }
                    return .done
                } catch {
                    return .failed("\(error)")
                }
            case .process(let region):
                guard kernel.isOpen else { return .failed("no kernel is open") }
                guard let base = mapShared(region.memorySize) else { return .failed("cannot map the shared memory: \(String(cString: strerror(errno)))") }
                if let failure = kernel.process(input: UnsafeRawPointer(base), inputStride: region.inputStride, output: base + region.outputOffset,
                                                outputStride: region.outputStride, left: region.left, top: region.top,
                                                width: region.width, height: region.height) {
                    return .failed(failure)
                }
                return .done
            case .close:
                kernel.close()
                return .done
            }
        }

        mutating func close() { kernel.close() }

        private mutating func mapShared(_ size: Int) -> UnsafeMutableRawPointer? {
            if let mapping, size == mappedSize { return mapping }
            if let mapping { munmap(mapping, mappedSize) }
            mapping = nil
            guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, HelperServer.memory, 0), mapped != MAP_FAILED else { return nil }
            mapping = mapped
            mappedSize = size
            return mapped
        }
    }
}
