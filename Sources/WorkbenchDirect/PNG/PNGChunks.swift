/// A PNG's chunks as the decoder needs them: the header, the palette and transparency, and
/// where the image data lies. Every chunk's CRC is checked, as libpng checks them.
struct PNGChunks {
    /// IHDR's fields.
    struct Header {
        let width: Int, height: Int
        /// 0 grey, 2 RGB, 3 palette, 4 grey and alpha, 6 RGBA.
        let colourType: Int
        /// Bits a sample: 8 or 16, or 1, 2 or 4 for grey and palette images.
        let depth: Int
        /// Adam7 (`PNGInterlace`).
        var interlaced = false
        /// Samples a pixel in the file.
        var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colourType] ?? 0 }
        /// Bytes a row holds, its filter byte not counted.
        var rowBytes: Int { (width * channels * depth + 7) / 8 }
        /// The distance the filters look back: a pixel's bytes, at least one.
        var filterUnit: Int { max(1, channels * depth / 8) }

        /// The bands libpng's expansion gives libvips: a palette becomes RGB, a `tRNS` colour adds alpha.
        func outputBands(transparency: Bool) -> Int {
            switch colourType {
            case 0: transparency ? 2 : 1
            case 2, 3: transparency ? 4 : 3
            default: channels
            }
        }
    }

    let header: Header
    /// RGB triples.
    var palette: [UInt8] = []
    /// tRNS: alpha per palette entry, or the grey (2 bytes) or RGB (6 bytes) colour that is transparent.
    var transparency: [UInt8]?
    /// The IDAT chunks' data, in order.
    var imageData: [Range<Int>] = []

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    init(_ data: UnsafeRawBufferPointer) throws(PNGRefusal) {
        guard data.count > 8 + 25, Array(data[0..<8]) == Self.signature else { throw .notPNG }
        var at = 8
        var found: Header?
        var ended = false
        while !ended {
            guard at + 12 <= data.count else { throw .endsBeforeIEND }
            let length = Self.uint32(data, at)
            let type = String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self)
            let body = at + 8
            guard length <= data.count - body - 4 else { throw .chunkPastEnd(type) }
            let stored = Self.uint32(data, body + length)
            guard let base = data.baseAddress, Deflate.crc32(base + at + 4, count: 4 + length) == UInt32(stored) else {
                throw .badCRC(type)
            }
            switch type {
            case "IHDR":
                guard found == nil, length == 13 else { throw .damagedHeader }
                let depth = Int(data[body + 8]), colourType = Int(data[body + 9])
                guard depth == 8 || ([1, 2, 4].contains(depth) && [0, 3].contains(colourType)) || (depth == 16 && colourType != 3) else {
                    throw .depth(depth, colourType: colourType)
                }
                guard [0, 2, 3, 4, 6].contains(colourType), data[body + 10] == 0, data[body + 11] == 0 else {
                    throw .methods(colourType: colourType, compression: data[body + 10], filter: data[body + 11])
                }
                guard data[body + 12] <= 1 else { throw .interlaceMethod(data[body + 12]) }
                let width = Self.uint32(data, body), height = Self.uint32(data, body + 4)
                guard width > 0, height > 0, width < 1 << 31, height < 1 << 31 else { throw .frameSize(width, height) }
                found = Header(width: width, height: height, colourType: colourType, depth: depth, interlaced: data[body + 12] == 1)
            case "PLTE":
                guard found != nil, imageData.isEmpty, palette.isEmpty, length % 3 == 0, length > 0, length <= 768 else {
                    throw .misplacedPalette
                }
                palette = Array(data[body..<(body + length)])
            case "tRNS":
                guard let header = found, imageData.isEmpty, transparency == nil else { throw .misplacedTransparency }
                let expected = [0: 2, 2: 6][header.colourType]
                guard header.colourType == 3 ? length <= palette.count / 3 && !palette.isEmpty : length == expected else {
                    throw .unusableTransparency
                }
                transparency = Array(data[body..<(body + length)])
            case "IDAT":
                guard found != nil else { throw .dataBeforeHeader }
                guard imageData.last.map({ $0.upperBound + 12 == body }) ?? true else { throw .dataSplit }
                imageData.append(body..<(body + length))
            case "IEND":
                ended = true
            case "acTL", "fcTL", "fdAT":
                throw .animated
            default:
                // An unknown critical chunk (its first letter upper case) is an error for libpng.
                if let first = type.utf8.first, first < 0x61 { throw .unknownCriticalChunk(type) }
            }
            at = body + length + 4
        }
        guard let header = found, !imageData.isEmpty else { throw .noImageData }
        if header.colourType == 3 && palette.isEmpty { throw .noPalette }
        self.header = header
    }

    private static func uint32(_ data: UnsafeRawBufferPointer, _ at: Int) -> Int {
        Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3])
    }
}
