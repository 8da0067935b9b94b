import CKernel
import WorkbenchCore

/// A plugin's kernel as the helper runs it, through the plugin's C table: made for a filter's
/// values, started for one image, asked for regions, stopped. Failures come back in the
/// kernel's own words.
struct KernelSession {
    let library: PluginLibrary
    private var kernel: wb_kernel?
    private var state: UnsafeMutableRawPointer?
    private var image = wb_image_info()
    private var message = [CChar](repeating: 0, count: 1024)

    init(library: PluginLibrary) { self.library = library }

    /// Whether a kernel is open for regions.
    var isOpen: Bool { kernel?.process != nil }

    /// The shape of `filter`'s kernel for these values (its margin and colour bands in and
    /// out); the kernel is let go at once.
    func describe(_ filter: PluginManifest.FilterDeclaration, _ values: ParameterValues) throws(PluginError)
        -> (margin: Int, inputColourBands: Int, outputColourBands: Int) {
        let made = try library.makeKernel(filter, values)
        made.release?(made.instance)
        return (Int(made.margin), Int(made.input_colour_bands), Int(made.output_colour_bands))
    }

    /// Makes `filter`'s kernel and starts it on an image of this shape (a kernel open before is
    /// closed); nil, or the kernel's words when its start failed.
    mutating func open(_ filter: PluginManifest.FilterDeclaration, _ values: ParameterValues, width: Int32, height: Int32, bands: Int32,
                       hasAlpha: Int32, format: Int32, max: Float) throws(PluginError) -> String? {
        close()
        let made = try library.makeKernel(filter, values)
        image = wb_image_info(width: width, height: height, bands: bands, has_alpha: hasAlpha, format: format, max: max)
        var state: UnsafeMutableRawPointer?
        if let start = made.start, start(made.instance, &image, &state, &message, message.count) != 0 {
            made.release?(made.instance)
            return messageText(message)
        }
        kernel = made
        self.state = state
        return nil
    }

    /// The open kernel over one region: input rows at `input`, output rows written at `output`;
    /// nil, or what went wrong in the kernel's words.
    mutating func process(input: UnsafeRawPointer, inputStride: Int, output: UnsafeMutableRawPointer, outputStride: Int,
                          left: Int32, top: Int32, width: Int32, height: Int32) -> String? {
        guard let kernel, let process = kernel.process else { return "no kernel is open" }
        var area = wb_region(in: input, in_stride: inputStride, out: output, out_stride: outputStride, left: left, top: top,
                             width: width, height: height)
        message[0] = 0
        guard process(kernel.instance, state, &image, &area, &message, message.count) == 0 else { return messageText(message) }
        return nil
    }

    /// Stops and lets go of the open kernel, if any.
    mutating func close() {
        guard let kernel else { return }
        kernel.stop?(kernel.instance, state)
        kernel.release?(kernel.instance)
        self.kernel = nil
        state = nil
    }
}
