/// Why `PNGDecoder` left a file to libpng (which then reads it, or refuses it in its own words):
/// what the decoder does not read, damage it found, or a limit. The words are all here.
public enum PNGRefusal: Error, Sendable, CustomStringConvertible {
    case notPNG
    case endsBeforeIEND
    case chunkPastEnd(String)
    case badCRC(String)
    case damagedHeader
    case depth(Int, colourType: Int)
    case methods(colourType: Int, compression: UInt8, filter: UInt8)
    case interlaceMethod(UInt8)
    case frameSize(Int, Int)
    case misplacedPalette
    case misplacedTransparency
    case unusableTransparency
    case dataBeforeHeader
    case dataSplit
    case animated
    case unknownCriticalChunk(String)
    case noImageData
    case noPalette
    case morePixelsThanAllowed
    case tooLarge(limitMiB: Int)
    case noMemory(String)
    case moreDataThanHeaderSays
    case dataDoesNotInflate
    case rowFilter(UInt8)
    case indexPastPalette

    public var description: String {
        switch self {
        case .notPNG: "not a PNG"
        case .endsBeforeIEND: "the file ends before its IEND chunk"
        case .chunkPastEnd(let type): "its \(type) chunk runs past the file's end"
        case .badCRC(let type): "its \(type) chunk's CRC does not match"
        case .damagedHeader: "a damaged IHDR chunk"
        case .depth(let depth, let colourType): "\(depth)-bit samples for colour type \(colourType), which PNG does not allow"
        case .methods(let colourType, let compression, let filter): "colour type \(colourType) with methods \(compression), \(filter)"
        case .interlaceMethod(let method): "interlace method \(method)"
        case .frameSize(let width, let height): "a frame of \(width)×\(height)"
        case .misplacedPalette: "a misplaced or damaged PLTE chunk"
        case .misplacedTransparency: "a misplaced tRNS chunk"
        case .unusableTransparency: "a tRNS chunk libpng would ignore or refuse"
        case .dataBeforeHeader: "image data before the header"
        case .dataSplit: "image data split by other chunks"
        case .animated: "an animated PNG"
        case .unknownCriticalChunk(let type): "a critical chunk \(type) this decoder does not know"
        case .noImageData: "no image data"
        case .noPalette: "a palette image without a palette"
        case .morePixelsThanAllowed: "more pixels than maxPixels"
        case .tooLarge(let limit): "over \(limit) MiB of samples, which libpng streams in less memory"
        case .noMemory(let what): "no memory for \(what)"
        case .moreDataThanHeaderSays: "more image data than the header says"
        case .dataDoesNotInflate: "image data that does not inflate to the image"
        case .rowFilter(let type): "a row with filter type \(type)"
        case .indexPastPalette: "a palette index past the palette"
        }
    }
}
