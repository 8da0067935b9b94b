/// One Huffman table of a JPEG (a DHT segment's class and id), ready to decode with: codes of up
/// to 9 bits in one look-up, longer ones code length by code length.
///
/// libjpeg checks a table only when a scan uses it, so a table it would refuse is kept with the
/// reason (`flaw`) and refused at that scan, not at its DHT.
struct JPEGHuffmanTable {
    static let lookupBits = 9
    /// For each 9-bit prefix: the code's length << 8 | its symbol, or 0 when the code is longer.
    private(set) var lookup = [UInt16](repeating: 0, count: 1 << lookupBits)
    /// For each length 1…16, the largest code of that length (-1: none) and where its symbols start.
    private var maxCode = [Int32](repeating: -1, count: 18)
    private var symbolOffset = [Int32](repeating: 0, count: 18)
    private var symbols: [UInt8]
    /// Why libjpeg would refuse this table when a scan uses it (`jpeg_make_d_derived_tbl`), if it would.
    private(set) var flaw: String?
    /// The largest symbol: libjpeg refuses a DC table with a symbol above 15.
    let largestSymbol: UInt8

    /// `counts[l]`: how many codes are l + 1 bits long; `symbols` in code order.
    init(counts: [Int], symbols: [UInt8]) {
        self.symbols = symbols
        largestSymbol = symbols.max() ?? 0
        var code: Int32 = 0, index: Int32 = 0
        for length in 1...16 {
            let count = Int32(counts[length - 1])
            symbolOffset[length] = index - code
            for _ in 0..<count {
                // No code may be all ones (T.81 C.2), nor longer than its length.
                guard code < (1 << length) - 1 else {
                    flaw = "more codes of \(length) bits than fit, or one of all ones"
                    lookup = [UInt16](repeating: 0, count: 1 << Self.lookupBits)
                    return
                }
                if length <= Self.lookupBits {
                    let shift = Self.lookupBits - length
                    let entry = UInt16(length << 8) | UInt16(symbols[Int(index)])
                    for prefix in Int(code << shift)..<Int((code + 1) << shift) { lookup[prefix] = entry }
                }
                code += 1
                index += 1
            }
            if count > 0 { maxCode[length] = code - 1 }
            code <<= 1
        }
    }

    /// The symbol of a code `length` bits long, or nil when no code of that length is `code`.
    func symbol(code: Int32, length: Int) -> UInt8? {
        guard code <= maxCode[length] else { return nil }
        let index = Int(symbolOffset[length] + code)
        return symbols.indices.contains(index) ? symbols[index] : nil
    }

    /// Why libjpeg refuses this table for the use a scan makes of it, if it does.
    func refusal(asDC: Bool) -> String? {
        if let flaw { return flaw }
        if asDC && largestSymbol > 15 { return "a DC symbol of \(largestSymbol) (at most 15)" }
        return nil
    }
}
