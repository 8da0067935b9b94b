/// AC bands of one component, block by block over the blocks that hold image: a first pass
/// reads runs of zeros and new values, with end-of-band runs spanning blocks; a refinement adds
/// a bit to each coefficient already nonzero and places the newly nonzero ones (±1).
extension ProgressiveScan {
    func decodeAC(_ scanReader: inout JPEGEntropyReader, _ component: ProgressiveFrame.Component) -> Bool {
        guard let store = component.store, let table = members[0].ac, let slots = ScaledIDCT.slotsByScale[component.scale] else { return false }
        // A copy of the reader's own, so that it can stay in registers (see `JPEGEntropyReader.fill`).
        var reader = scanReader
        defer { scanReader = reader }
        return table.lookup.withUnsafeBufferPointer { lookup in
            slots.withUnsafeBufferPointer { slots in
              Self.setBitPositions.withUnsafeBufferPointer { setBits in
                let keptMask = slots.enumerated().reduce(UInt64(0)) { $1.element >= 0 ? $0 | 1 << UInt64($1.offset) : $0 }
                let band = (UInt64.max >> UInt64(63 - end)) & (UInt64.max << UInt64(start))
                let context = ACContext(values: store.values, nonzero: store.nonzero, size: component.kept * component.kept,
                                        slots: slots.baseAddress!, lookup: lookup.baseAddress!, table: table, keptMask: keptMask, band: band, setBits: setBits.baseAddress!)
                // At 1/8 no AC coefficient is kept, and a refinement only has to count its
                // correction bits: its own copy of the code, with the stores left out.
                let keepsBand = band & keptMask != 0
                var endOfBands = 0
                var restarts = 0
                var blockIndex = 0
                for y in 0..<component.blocksHigh {
                    let row = y * component.stride
                    var x = 0
                    while x < component.blocksWide {
                        if restartInterval > 0, blockIndex > 0, blockIndex % restartInterval == 0 {
                            guard reader.restart(number: restarts) else { return false }
                            restarts += 1
                            endOfBands = 0
                        }
                        if endOfBands > 0 {
                            // Blocks inside an end-of-band run, as many as the row and the restart
                            // interval hold, together: nothing new in them, at most correction bits.
                            var run = min(endOfBands, component.blocksWide - x)
                            if restartInterval > 0 { run = min(run, restartInterval - blockIndex % restartInterval) }
                            if high != 0 { correctRun(blocks: row + x, count: run, &reader, context, keepsBand: keepsBand) }
                            endOfBands -= run
                            x += run
                            blockIndex += run
                            continue
                        }
                        let block = row + x
                        let decoded = high == 0 ? firstPass(&reader, block: block, context, endOfBands: &endOfBands)
                            : keepsBand ? refinement(&reader, block: block, context, endOfBands: &endOfBands, keepsBand: true)
                            : refinement(&reader, block: block, context, endOfBands: &endOfBands, keepsBand: false)
                        guard decoded else { return false }
                        x += 1
                        blockIndex += 1
                    }
                }
                return true
              }
            }
        }
    }

    /// What a block's decoding reads and writes, gathered once a scan.
    struct ACContext {
        let values: UnsafeMutablePointer<Int16>
        let nonzero: UnsafeMutablePointer<UInt64>
        let size: Int
        let slots: UnsafePointer<Int>
        let lookup: UnsafePointer<UInt16>
        let table: JPEGHuffmanTable
        /// The zigzag positions whose values the block keeps.
        let keptMask: UInt64
        /// The scan's zigzag positions.
        let band: UInt64
        /// `setBitPositions`.
        let setBits: UnsafePointer<UInt8>
    }

    /// A block's first pass over the band: runs of zeros and new values, or the start of an
    /// end-of-band run (`endOfBands`: the blocks after this one that it covers).
    @inline(always)
    private func firstPass(_ reader: inout JPEGEntropyReader, block: Int, _ c: ACContext, endOfBands: inout Int) -> Bool {
        let value = c.values + block * c.size
        var mask = c.nonzero[block]
        defer { c.nonzero[block] = mask }
        let one = 1 << low
        var k = start
        while k <= end {
            guard let symbol = reader.shortSymbol(c.lookup) ?? reader.symbol(c.table) else { return false }
            let run = symbol >> 4, bits = symbol & 15
            if bits != 0 {
                k += run
                guard k <= end else { return false }
                // The mask says which coefficients are nonzero as libjpeg's 16-bit values are: a
                // huge value shifted by `low` can wrap to 0, and a refinement passes it as a zero.
                let bit = UInt64(1) << UInt64(k)
                if c.slots[k] >= 0 || bits + low >= 16 {
                    let coefficient = Int16(truncatingIfNeeded: reader.difference(category: bits) * one)
                    if c.slots[k] >= 0 { value[c.slots[k]] = coefficient }
                    mask = coefficient != 0 ? mask | bit : mask & ~bit
                } else {
                    reader.skip(bits)
                    mask |= bit
                }
                k += 1
            } else if run == 15 {
                k += 16
            } else {
                endOfBands = (1 << run) + reader.bits(run) - 1
                break
            }
        }
        return true
    }

    /// A block's refinement: the correction bit of every nonzero coefficient passed, and the
    /// newly nonzero ones placed on the zeros. Runs of zeros are found in the block's nonzero
    /// mask, and the correction bits of coefficients this scale does not keep are stepped over
    /// together.
    @inline(always)
    private func refinement(_ reader: inout JPEGEntropyReader, block: Int, _ c: ACContext, endOfBands: inout Int, keepsBand: Bool) -> Bool {
        let value = c.values + block * c.size
        var mask = c.nonzero[block]
        defer { c.nonzero[block] = mask }
        let one = 1 << low
        var k = start
        while k <= end {
            guard let symbol = reader.shortSymbol(c.lookup) ?? reader.symbol(c.table) else { return false }
            let run = symbol >> 4
            let bits = symbol & 15
            var placed = 0
            if bits != 0 {
                guard bits == 1 else { return false }
                placed = reader.bits(1) != 0 ? one : -one
            } else if run != 15 {
                endOfBands = (1 << run) + reader.bits(run) - 1
                // The rest of the band: only its nonzero coefficients take a bit.
                correct(mask & c.band & (UInt64.max << UInt64(k)), &reader, value, c, one: one, keepsBand: keepsBand)
                return true
            }
            // Pass `run` zero coefficients, correcting the nonzero ones on the way, and stop
            // on the next zero: the new coefficient's place, if there is one (after a run of
            // 16 zeros, simply the next).
            let ahead = c.band & (UInt64.max << UInt64(k))
            let found = Self.position(ofSetBit: run, in: ~mask & ahead, c.setBits)
            let stop = found > end ? end + 1 : found
            correct(mask & ahead & ~(UInt64.max << UInt64(stop)), &reader, value, c, one: one, keepsBand: keepsBand)
            k = stop
            if placed != 0 {
                guard k <= end else { return false }
                mask |= 1 << UInt64(k)
                if keepsBand, c.slots[k] >= 0 { value[c.slots[k]] = Int16(truncatingIfNeeded: placed) }
            }
            k += 1
        }
        return true
    }

    /// The refinement of `count` blocks from `blocks` inside an end-of-band run: a correction
    /// bit for each of their nonzero coefficients in the band.
    @inline(always)
    private func correctRun(blocks: Int, count: Int, _ reader: inout JPEGEntropyReader, _ c: ACContext, keepsBand: Bool) {
        let one = 1 << low
        if keepsBand {
            for block in blocks..<(blocks + count) {
                correct(c.nonzero[block] & c.band, &reader, c.values + block * c.size, c, one: one, keepsBand: true)
            }
        } else {
            var bits = 0
            for block in blocks..<(blocks + count) { bits += (c.nonzero[block] & c.band).nonzeroBitCount }
            reader.skip(bits)
        }
    }

    /// Reads the correction bit of each coefficient in `pending` (a mask of zigzag positions, in
    /// order) and adds it to those the block keeps: away from zero, as libjpeg does. The bits
    /// come off the reader together, and each kept coefficient finds its own by its rank among
    /// `pending`: no branch on a bit's value, which is as good as random.
    @inline(always)
    private func correct(_ pending: UInt64, _ reader: inout JPEGEntropyReader, _ value: UnsafeMutablePointer<Int16>, _ c: ACContext,
                         one: Int, keepsBand: Bool) {
        let total = pending.nonzeroBitCount
        guard keepsBand, pending & c.keptMask != 0 else {
            reader.skip(total)
            return
        }
        // At most 63 bits: the reader hands out up to 32 at a time.
        let high = total > 32 ? reader.bits(total - 32) : 0
        let lowCount = total > 32 ? 32 : total
        let word = UInt64(truncatingIfNeeded: high) << UInt64(lowCount) | UInt64(truncatingIfNeeded: reader.bits(lowCount))
        var kept = pending & c.keptMask
        while kept != 0 {
            let k = kept.trailingZeroBitCount
            kept &= kept - 1
            let rank = (pending & ~(UInt64.max << UInt64(k))).nonzeroBitCount
            let bit = Int(truncatingIfNeeded: word >> UInt64(total - 1 - rank)) & 1
            let slot = c.slots[k]
            let old = Int(value[slot])
            // One more bit of magnitude, away from zero, unless the value has that bit already.
            let away = old >= 0 ? one : -one
            let add = old & one == 0 ? away & -bit : 0
            value[slot] = Int16(truncatingIfNeeded: old + add)
        }
    }

    /// Where set bit number `n` (from 0, lowest first) of `x` is, or 64 when `x` has no more
    /// than `n`: counted a byte at a time in one word, then looked up within its byte. No
    /// branch on `n`, whose value a processor cannot guess.
    @inline(always)
    static func position(ofSetBit n: Int, in x: UInt64, _ withinByte: UnsafePointer<UInt8>) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        var counts = x &- ((x >> 1) & 0x5555_5555_5555_5555)
        counts = (counts & 0x3333_3333_3333_3333) &+ ((counts >> 2) & 0x3333_3333_3333_3333)
        counts = (counts &+ (counts >> 4)) & 0x0F0F_0F0F_0F0F_0F0F
        // Byte i of `upTo`: the set bits in bytes 0…i, at most 64, so no borrow crosses bytes.
        let upTo = counts &* ones
        let index = ((((UInt64(n) &* ones) | highs) &- upTo) & highs).nonzeroBitCount
        guard index < 8 else { return 64 }
        let before = Int(truncatingIfNeeded: (upTo << 8) >> UInt64(8 * index)) & 0xFF
        let byte = Int(truncatingIfNeeded: x >> UInt64(8 * index)) & 0xFF
        return 8 * index + Int(withinByte[byte << 3 | (n - before)])
    }

    /// For each byte and n < 8, where its set bit number n is (8 when it has no more).
    static let setBitPositions: [UInt8] = (0..<256).flatMap { byte in
        (0..<8).map { n in UInt8((0..<8).filter { byte >> $0 & 1 == 1 }.dropFirst(n).first ?? 8) }
    }
}
