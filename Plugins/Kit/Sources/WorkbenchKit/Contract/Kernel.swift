import CKernel

/// A pixel kernel: the unit of custom pixel work, run by the host region by region on libvips'
/// threads (see `workbench_kernel.h`, the C contract every kernel is exported through).
///
/// A point kernel (`margin` 0) computes each output pixel from the input pixel at the same place;
/// an area kernel reads `margin` pixels around it (the host repeats edge pixels beyond the image).
/// Kernels are values: their parameters are fixed when they are made, and `process` may run on
/// several threads at once, each with its own scratch.
public protocol Kernel: Sendable {
    /// For messages: the filter's name.
    var name: String { get }
    /// Pixels read on every side of each output pixel; 0 for a point kernel.
    var margin: Int { get }
    /// 0: any image; 3: colour images only (the host turns grey images sRGB first).
    var inputColourBands: Int { get }
    /// 0: as many colour bands out as in; 1: grey out. Alpha, if any, follows the colour bands.
    var outputColourBands: Int { get }
    /// Scratch memory for one thread, made before its first region (nil: none needed).
    func makeScratch(for image: KernelImage) throws(KernelError) -> AnyObject?
    /// Fills `region`'s output from its input.
    func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError)
}

extension Kernel {
    public var margin: Int { 0 }
    public var inputColourBands: Int { 0 }
    public var outputColourBands: Int { 0 }
    public func makeScratch(for image: KernelImage) throws(KernelError) -> AnyObject? { nil }
}

/// Why a kernel could not process a region; the item fails with `message`.
public struct KernelError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// How samples are stored.
public enum SampleFormat: Int32, Sendable {
    case uint8 = 0, uint16 = 1, float = 2
}

/// The image a kernel runs on.
public struct KernelImage: Sendable {
    public let width: Int
    public let height: Int
    /// Samples per pixel, interleaved, 1 … 4.
    public let bands: Int
    /// The last band is alpha.
    public let hasAlpha: Bool
    public let format: SampleFormat
    /// The value of white in this format: 255, 65535, or for float 255 (sRGB) or 1 (scRGB).
    public let max: Float

    /// Bands that carry colour (all but alpha).
    public var colourBands: Int { hasAlpha ? bands - 1 : bands }

    public init(width: Int, height: Int, bands: Int, hasAlpha: Bool, format: SampleFormat, max: Float) {
        self.width = width
        self.height = height
        self.bands = bands
        self.hasAlpha = hasAlpha
        self.format = format
        self.max = max
    }

    init?(_ info: wb_image_info) {
        guard let format = SampleFormat(rawValue: info.format) else { return nil }
        self.init(width: Int(info.width), height: Int(info.height), bands: Int(info.bands), hasAlpha: info.has_alpha != 0,
                  format: format, max: info.max)
    }
}

/// One rectangle of work: the output rows to fill and the input rows they are computed from.
public struct KernelRegion {
    /// The output rectangle, in image coordinates.
    public let left: Int, top: Int, width: Int, height: Int
    /// The kernel's margin: input rows and columns reach this far beyond the rectangle.
    public let margin: Int
    let input: UnsafeRawPointer
    let inputStride: Int
    let output: UnsafeMutableRawPointer
    let outputStride: Int

    public init(left: Int, top: Int, width: Int, height: Int, margin: Int,
                input: UnsafeRawPointer, inputStride: Int, output: UnsafeMutableRawPointer, outputStride: Int) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        self.margin = margin
        self.input = input
        self.inputStride = inputStride
        self.output = output
        self.outputStride = outputStride
    }

    /// Input row `y` (−margin … height − 1 + margin, relative to `top`), starting at column
    /// `left − margin`: the output pixel x is at index `(x + margin) · bands` of it.
    @inline(__always)
    public func inputRow<Sample>(_ y: Int, as: Sample.Type) -> UnsafePointer<Sample> {
        (input + (y + margin) * inputStride).assumingMemoryBound(to: Sample.self)
    }

    /// Output row `y` (0 … height − 1), starting at column `left`.
    @inline(__always)
    public func outputRow<Sample>(_ y: Int, as: Sample.Type) -> UnsafeMutablePointer<Sample> {
        (output + y * outputStride).assumingMemoryBound(to: Sample.self)
    }
}

/// A kernel written once for every sample format: the host's call is passed on to
/// `process(_:_:as:)` with the Swift type of the image's samples (`UInt8`, `UInt16` or `Float`),
/// so the loop is compiled once per format, as if written three times. Our kernels forward it
/// to a private generic function that holds the loop: measured, the compiler specializes that
/// one better (pixelate 1.1× faster than with the loop in `process(_:_:as:)` itself).
public protocol SampleKernel: Kernel {
    func process<S: KernelSample>(_ region: KernelRegion, _ image: KernelImage, as: S.Type) throws(KernelError)
}

extension SampleKernel {
    // Inlinable so that the conforming module specializes the call for each format.
    @inlinable
    public func process(_ region: KernelRegion, image: KernelImage, scratch: AnyObject?) throws(KernelError) {
        switch image.format {
        case .uint8: try process(region, image, as: UInt8.self)
        case .uint16: try process(region, image, as: UInt16.self)
        case .float: try process(region, image, as: Float.self)
        }
    }
}
