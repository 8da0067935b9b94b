/// PNG's row filters undone in place (filter method 0: None, Sub, Up, Average, Paeth), as
/// libpng undoes them; each row's first byte names its filter.
enum PNGFilters {
    static func unfilter(_ raw: UnsafeMutablePointer<UInt8>, rows: Int, stride: Int, bytesPerPixel bpp: Int) throws(PNGRefusal) {
        for y in 0..<rows {
            let row = raw + (y &* (stride &+ 1) &+ 1)
            let above: UnsafeMutablePointer<UInt8>? = y == 0 ? nil : row - (stride &+ 1)
            switch row[-1] {
            case 0:
                break
            case 1:
                for x in bpp..<max(bpp, stride) { row[x] = row[x] &+ row[x &- bpp] }
            case 2:
                if let above { for x in 0..<stride { row[x] = row[x] &+ above[x] } }
            case 3:
                for x in 0..<stride {
                    let left = x >= bpp ? Int(row[x &- bpp]) : 0, up = above.map { Int($0[x]) } ?? 0
                    row[x] = row[x] &+ UInt8(truncatingIfNeeded: (left &+ up) >> 1)
                }
            case 4:
                for x in 0..<stride {
                    let a = x >= bpp ? Int(row[x &- bpp]) : 0, b = above.map { Int($0[x]) } ?? 0
                    let c = x >= bpp ? (above.map { Int($0[x &- bpp]) } ?? 0) : 0
                    let p = a &+ b &- c, pa = abs(p &- a), pb = abs(p &- b), pc = abs(p &- c)
                    let predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                    row[x] = row[x] &+ UInt8(truncatingIfNeeded: predictor)
                }
            default:
                throw .rowFilter(row[-1])
            }
        }
    }
}
