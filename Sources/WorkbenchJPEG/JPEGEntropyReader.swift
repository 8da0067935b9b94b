import Glibc

/// Reads the bits of one entropy-coded segment: bytes stuffed after 0xFF are dropped, and a
/// marker ends the data (past it the reader gives zero bits and counts them, so a segment that
/// ends too early is noticed rather than read into the next one).
struct JPEGEntropyReader {
    private let data: UnsafeRawBufferPointer
    /// The next byte to take into the bit buffer.
    private(set) var position: Int
    private var bits: UInt64 = 0
    private var count = 0
    /// Zero bits handed out past the segment's end.
    private var padding = 0

    init(_ data: UnsafeRawBufferPointer, at position: Int) {
        self.data = data
        self.position = position
    }

    /// Whether every bit read so far came from the data (none from past the segment's end).
    var readPastEnd: Bool { padding > count }

    /// Tops the bit buffer up to more than 56 bits. Inlined, with the bytes near an 0xFF taken
    /// apart by a function that is handed the reader's parts and hands them back: a call given
    /// the reader itself would take it by address and keep it in memory through a whole scan.
    @inline(always)
    private mutating func fill() {
        // Most of the data holds no 0xFF: take as many whole bytes as fit in one load.
        if position &+ 8 <= data.count {
            let word = UInt64(bigEndian: data.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let inverted = ~word
            if (inverted &- 0x0101_0101_0101_0101) & ~inverted & 0x8080_8080_8080_8080 == 0 {
                let take = (64 &- count) / 8
                bits = bits << UInt64(8 &* take) | word >> UInt64(64 &- 8 &* take)
                count &+= 8 &* take
                position &+= take
                return
            }
        }
        (bits, count, position, padding) = Self.fillByteByByte(data, bits, count, position, padding)
    }

    @inline(never)
    private static func fillByteByByte(_ data: UnsafeRawBufferPointer, _ bits: UInt64, _ count: Int, _ position: Int,
                                       _ padding: Int) -> (UInt64, Int, Int, Int) {
        var (bits, count, position, padding) = (bits, count, position, padding)
        while count <= 56 {
            var byte: UInt8 = 0
            if position < data.count, data[position] != JPEGMarker.prefix {
                byte = data[position]
                position += 1
            } else if position + 1 < data.count, data[position + 1] == 0 {
                byte = JPEGMarker.prefix
                position += 2
            } else {
                padding += 8
            }
            bits = bits << 8 | UInt64(byte)
            count += 8
        }
        return (bits, count, position, padding)
    }

    @inline(always)
    mutating func bits(_ n: Int) -> Int {
        // Masking shifts and wrapping arithmetic: n ≤ 32 and count ≤ 64 by construction, and the
        // checks Swift's own would add are a third of a symbol's instructions.
        if count < n { fill() }
        count &-= n
        return Int(truncatingIfNeeded: bits &>> UInt64(truncatingIfNeeded: count)) & ((1 &<< n) &- 1)
    }

    /// Steps over `n` bits (any number).
    @inline(always)
    mutating func skip(_ n: Int) {
        var left = n
        while left > count {
            left &-= count
            count = 0
            fill()
        }
        count &-= left
    }

    /// The next symbol when its code is at most `JPEGHuffmanTable.lookupBits` long (one look-up
    /// in a table's `lookup`), else nil with nothing read.
    @inline(always)
    mutating func shortSymbol(_ lookup: UnsafePointer<UInt16>) -> Int? {
        if count < 16 { fill() }
        let lookupBits = JPEGHuffmanTable.lookupBits
        let entry = lookup[Int(truncatingIfNeeded: bits &>> UInt64(truncatingIfNeeded: count &- lookupBits)) & (1 << lookupBits - 1)]
        guard entry != 0 else { return nil }
        count &-= Int(entry &>> 8)
        return Int(entry & 0xFF)
    }

    /// The next Huffman-coded symbol, or nil for a code the table does not have (damage). For
    /// codes longer than a look-up: rare, and decoded on a reader made of this one's parts (see
    /// `fill`).
    @inline(always)
    mutating func symbol(_ table: JPEGHuffmanTable) -> Int? {
        let symbol: Int?
        (bits, count, position, padding, symbol) = Self.longSymbol(data, bits, count, position, padding, table)
        return symbol
    }

    @inline(never)
    private static func longSymbol(_ data: UnsafeRawBufferPointer, _ bits: UInt64, _ count: Int, _ position: Int, _ padding: Int,
                                   _ table: JPEGHuffmanTable) -> (UInt64, Int, Int, Int, Int?) {
        var reader = JPEGEntropyReader(data, at: position)
        (reader.bits, reader.count, reader.padding) = (bits, count, padding)
        let symbol = reader.decodeLong(table)
        return (reader.bits, reader.count, reader.position, reader.padding, symbol)
    }

    private mutating func decodeLong(_ table: JPEGHuffmanTable) -> Int? {
        if count < 16 { fill() }
        let lookupBits = JPEGHuffmanTable.lookupBits
        let prefix = Int(truncatingIfNeeded: bits >> UInt64(count - lookupBits)) & (1 << lookupBits - 1)
        let entry = table.lookup[prefix]
        if entry != 0 {
            count -= Int(entry >> 8)
            return Int(entry & 0xFF)
        }
        var code = Int32(prefix)
        count -= lookupBits
        for length in (lookupBits + 1)...16 {
            code = code << 1 | Int32(bits(1))
            if let symbol = table.symbol(code: code, length: length) { return Int(symbol) }
        }
        return nil
    }

    /// A DC difference of `category` bits (JPEG's EXTEND: the top bit clear means negative).
    @inline(always)
    mutating func difference(category: Int) -> Int {
        let value = bits(category)
        return category > 0 && value < 1 &<< (category &- 1) ? value &- (1 &<< category) &+ 1 : value
    }

    /// The first of the whole bytes left before the marker at `marker` that no symbol read, if
    /// any: libjpeg discards them with a warning ("extraneous bytes before marker"). Bits short
    /// of a byte are the encoder's padding, and 0xFF fill bytes before a marker are allowed.
    func firstUnreadByte(before marker: Int) -> Int? {
        let buffered = (count - padding) / 8
        if buffered > 0 { return position - buffered }
        var at = position
        while at < marker {
            if data[at] != JPEGMarker.prefix { return at }
            at += 1
        }
        return nil
    }

    /// Steps over the marker RST`number` (0…7) at a restart interval's end: false when the
    /// interval was short of bits, left whole bytes unread, or another marker is there (damage).
    @inline(always)
    mutating func restart(number: Int) -> Bool {
        guard !readPastEnd, count - padding < 8, position + 1 < data.count, data[position] == JPEGMarker.prefix,
              data[position + 1] == JPEGMarker.restarts.lowerBound + UInt8(number & 7) else { return false }
        bits = 0
        count = 0
        padding = 0
        position += 2
        return true
    }

    /// Where the marker that ends the entropy-coded data starting at `start` begins, skipping
    /// stuffed bytes, fill bytes and restart markers; nil if the data runs out first.
    static func end(of data: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let base = data.baseAddress else { return nil }
        var index = start
        while index + 1 < data.count {
            // Only an 0xFF can start a marker: memchr finds the next one many bytes a step.
            guard let found = memchr(base + index, Int32(JPEGMarker.prefix), data.count - 1 - index) else { return nil }
            index = base.distance(to: UnsafeRawPointer(found))
            let next = data[index + 1]
            // A stuffed zero, a fill byte or a restart marker: still inside the entropy-coded data.
            if next == 0 || next == JPEGMarker.prefix || JPEGMarker.restarts.contains(next) { index += next == JPEGMarker.prefix ? 1 : 2; continue }
            return index
        }
        return nil
    }
}
