import CKernel
import Foundation
import Glibc
import WorkbenchCore

extension HelperServer {
    /// The kernel opened on this helper, if any, and the shared memory as last mapped.
    struct Session {
        let library: PluginLibrary
        var kernel: wb_kernel?
        var state: UnsafeMutableRawPointer?
        var image = wb_image_info()
        var mapping: UnsafeMutableRawPointer?
        var mappedSize = 0
        var message = [CChar](repeating: 0, count: 1024)

        init(library: PluginLibrary) { self.library = library }

        mutating func handle(_ request: HelperRequest) -> HelperReply {
            switch request {
            case .describe(let name, let values):
                guard let filter = library.manifest.filters.first(where: { $0.name == name }) else { return .failed("no filter \"\(name)\"") }
                do {
                    let made = try library.makeKernel(filter, WireValue.decode(values))
                    made.release?(made.instance)
                    return .described(margin: Int(made.margin), inputColourBands: Int(made.input_colour_bands),
                                      outputColourBands: Int(made.output_colour_bands))
                } catch {
                    return .failed("\(error)")
                }
            case .open(let name, let values, let wire):
                close()
                guard let filter = library.manifest.filters.first(where: { $0.name == name }) else { return .failed("no filter \"\(name)\"") }
                do {
                    let made = try library.makeKernel(filter, WireValue.decode(values))
                    image = wb_image_info(width: wire.width, height: wire.height, bands: wire.bands, has_alpha: wire.hasAlpha,
                                          format: wire.format, max: wire.max)
                    var state: UnsafeMutableRawPointer?
                    if let start = made.start, start(made.instance, &image, &state, &message, message.count) != 0 {
                        made.release?(made.instance)
                        return .failed(messageText(message))
                    }
                    kernel = made
                    self.state = state
                    return .done
                } catch {
                    return .failed("\(error)")
                }
            case .process(let region):
                guard let kernel, let process = kernel.process else { return .failed("no kernel is open") }
                guard let base = map(region.memorySize) else { return .failed("cannot map the shared memory: \(String(cString: strerror(errno)))") }
                var area = wb_region(in: UnsafeRawPointer(base), in_stride: region.inputStride, out: base + region.outputOffset,
                                     out_stride: region.outputStride, left: region.left, top: region.top,
                                     width: region.width, height: region.height)
                message[0] = 0
                guard process(kernel.instance, state, &image, &area, &message, message.count) == 0 else {
                    return .failed(messageText(message))
                }
                return .done
            case .close:
                close()
                return .done
            }
        }

        mutating func close() {
            guard let kernel else { return }
            kernel.stop?(kernel.instance, state)
            kernel.release?(kernel.instance)
            self.kernel = nil
            state = nil
        }

        private mutating func map(_ size: Int) -> UnsafeMutableRawPointer? {
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
