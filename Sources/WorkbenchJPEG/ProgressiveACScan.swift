/// AC bands of one component, block by block over the blocks that hold image: a first pass
/// reads runs of zeros and new values, with end-of-band runs spanning blocks; a refinement adds
/// a bit to each coefficient already nonzero and places the newly nonzero ones (±1).
extension ProgressiveScan {
    func decodeAC(_ reader: inout JPEGEntropyReader, _ component: ProgressiveFrame.Component) -> EntropyFault? {
        guard let store = component.store, let table = members[0].ac, let slots = ScaledIDCT.slotsByShape[component.shape] else { return .missingTable }
        return table.lookup.withUnsafeBufferPointer { lookup in
            slots.withUnsafeBufferPointer { slots in
                let keptMask = slots.enumerated().reduce(UInt64(0)) { $1.element >= 0 ? $0 | 1 << UInt64($1.offset) : $0 }
                let context = ACContext(values: store.values, nonzero: store.nonzero, size: component.kept * component.kept,
                                        slots: slots.baseAddress!, lookup: lookup.baseAddress!, table: table, keptMask: keptMask,
                                        band: (UInt64.max >> UInt64(63 - end)) & (UInt64.max << UInt64(start)))
                if high == 0 { return firstPasses(&reader, component, context) }
                if context.band & keptMask == 0 { return countRefinement(&reader, component, context) }
                return refinements(&reader, component, context)
            }
        }
    }

    // Each kind of pass has a function of its own with a reader of its own, small enough for
    // the reader and the block's mask to stay in registers (see `JPEGEntropyReader.fill`).

    @inline(never)
    private func firstPasses(_ scanReader: inout JPEGEntropyReader, _ component: ProgressiveFrame.Component, _ c: ACContext) -> EntropyFault? {
        var reader = scanReader
        defer { scanReader = reader }
        var endOfBands = 0
        var restarts = 0
        var blockIndex = 0
        for y in 0..<component.blocksHigh {
            let row = y &* component.stride
            for block in row..<(row &+ component.blocksWide) {
                if restartInterval > 0, blockIndex > 0, blockIndex % restartInterval == 0 {
                    guard reader.restart(number: restarts) else { return .missingRestart }
                    restarts &+= 1
                    endOfBands = 0
                }
                blockIndex &+= 1
                if let fault = firstPass(&reader, block: block, c, endOfBands: &endOfBands) { return fault }
            }
        }
        return nil
    }

    @inline(never)
    private func refinements(_ scanReader: inout JPEGEntropyReader, _ component: ProgressiveFrame.Component, _ c: ACContext) -> EntropyFault? {
        var reader = scanReader
        defer { scanReader = reader }
        var endOfBands = 0
        var restarts = 0
        var blockIndex = 0
        for y in 0..<component.blocksHigh {
            let row = y &* component.stride
            for block in row..<(row &+ component.blocksWide) {
                if restartInterval > 0, blockIndex > 0, blockIndex % restartInterval == 0 {
                    guard reader.restart(number: restarts) else { return .missingRestart }
                    restarts &+= 1
                    endOfBands = 0
                }
                blockIndex &+= 1
                if let fault = refinement(&reader, block: block, c, endOfBands: &endOfBands) { return fault }
            }
        }
        return nil
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
    }

    /// A block's first pass over the band: runs of zeros and new values.
    @inline(always)
    private func firstPass(_ reader: inout JPEGEntropyReader, block: Int, _ c: ACContext, endOfBands: inout Int) -> EntropyFault? {
        if endOfBands > 0 { endOfBands -= 1; return nil }
        let value = c.values + block * c.size
        var mask = c.nonzero[block]
        defer { c.nonzero[block] = mask }
        let one = 1 << low
        var k = start
        while k <= end {
            guard let symbol = reader.shortSymbol(c.lookup) ?? reader.symbol(c.table) else { return .badHuffmanCode }
            let run = symbol >> 4, bits = symbol & 15
            if bits != 0 {
                k += run
                guard k <= end else { return .runPastBand }
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
        return nil
    }

    /// A block's refinement: the correction bit of every nonzero coefficient passed, and the
    /// newly nonzero ones placed on the zeros. Runs of zeros are found in the block's nonzero
    /// mask, and the correction bits of coefficients this scale does not keep are stepped over
    /// together.
    @inline(always)
    private func refinement(_ reader: inout JPEGEntropyReader, block: Int, _ c: ACContext, endOfBands: inout Int) -> EntropyFault? {
        // Wrapping arithmetic and masking shifts throughout: positions are below 64 by the
        // scan's checks, and Swift's checked forms doubled the instructions of a symbol.
        let value = c.values + block &* c.size
        var mask = c.nonzero[block]
        defer { c.nonzero[block] = mask }
        let one = 1 &<< low
        let band = c.band
        var k = start
        if endOfBands == 0 {
            while k <= end {
                guard let symbol = reader.shortSymbol(c.lookup) ?? reader.symbol(c.table) else { return .badHuffmanCode }
                var run = symbol &>> 4
                let bits = symbol & 15
                var placed = 0
                if bits != 0 {
                    guard bits == 1 else { return .badCorrectionBit }
                    placed = reader.bits(1) != 0 ? one : -one
                } else if run != 15 {
                    endOfBands = (1 &<< run) &+ reader.bits(run)
                    break
                }
                // Pass `run` zero coefficients, correcting the nonzero ones on the way, and stop
                // on the next zero: the new coefficient's place, if there is one (after a run of
                // 16 zeros, simply the next).
                let ahead = band & (UInt64.max &<< UInt64(truncatingIfNeeded: k))
                var zeros = ~mask & ahead
                while run > 0 && zeros != 0 { zeros &= zeros &- 1; run &-= 1 }
                let stop = zeros == 0 ? end &+ 1 : zeros.trailingZeroBitCount
                let before = stop > 63 ? UInt64.max : (1 &<< UInt64(truncatingIfNeeded: stop)) &- 1
                correct(mask & ahead & before, &reader, value, c, one: one)
                k = stop
                if placed != 0 {
                    guard k <= end else { return .runPastBand }
                    mask |= 1 &<< UInt64(truncatingIfNeeded: k)
                    let slot = c.slots[k]
                    if slot >= 0 { value[slot] = Int16(truncatingIfNeeded: placed) }
                }
                k &+= 1
            }
        }
        if endOfBands > 0 {
            // The rest of the band: only its nonzero coefficients take a bit.
            if k <= end { correct(mask & band & (UInt64.max &<< UInt64(truncatingIfNeeded: k)), &reader, value, c, one: one) }
            endOfBands &-= 1
        }
        return nil
    }

    /// Reads the correction bit of each coefficient in `pending` (a mask of zigzag positions, in
    /// order) and adds it to those the block keeps: away from zero, as libjpeg does.
    @inline(always)
    private func correct(_ pending: UInt64, _ reader: inout JPEGEntropyReader, _ value: UnsafeMutablePointer<Int16>, _ c: ACContext, one: Int) {
        guard pending & c.keptMask != 0 else {
            reader.skip(pending.nonzeroBitCount)
            return
        }
        // The bits come off the reader together (at most 63: two reads), and each kept
        // coefficient finds its own by its rank among `pending`.
        let total = pending.nonzeroBitCount
        let first = total > 32 ? reader.bits(total &- 32) : 0
        let rest = total > 32 ? 32 : total
        let word = UInt64(truncatingIfNeeded: first) &<< UInt64(truncatingIfNeeded: rest) | UInt64(truncatingIfNeeded: reader.bits(rest))
        var kept = pending & c.keptMask
        while kept != 0 {
            let k = kept.trailingZeroBitCount
            kept &= kept &- 1
            let rank = (pending & ((1 &<< UInt64(truncatingIfNeeded: k)) &- 1)).nonzeroBitCount
            if word &>> UInt64(truncatingIfNeeded: total &- 1 &- rank) & 1 != 0 {
                let slot = c.slots[k]
                let old = Int(value[slot])
                if old & one == 0 { value[slot] = Int16(truncatingIfNeeded: old >= 0 ? old &+ one : old &- one) }
            }
        }
    }

    /// A refinement of a band the scale keeps nothing of (every AC band at 1/8): the file is
    /// still read as libjpeg reads it, but only the nonzero masks change and correction bits
    /// are counted, not read. Its own function with a reader of its own, small enough for the
    /// reader and the block's mask to stay in registers: these scans are most of a
    /// progressive photo's bits, and at 1/8 most of its decoding.
    @inline(never)
    private func countRefinement(_ scanReader: inout JPEGEntropyReader, _ component: ProgressiveFrame.Component, _ c: ACContext) -> EntropyFault? {
        var reader = scanReader
        defer { scanReader = reader }
        let band = c.band
        var endOfBands = 0
        var restarts = 0
        var blockIndex = 0
        for y in 0..<component.blocksHigh {
            let row = y &* component.stride
            for block in row..<(row &+ component.blocksWide) {
                if restartInterval > 0, blockIndex > 0, blockIndex % restartInterval == 0 {
                    guard reader.restart(number: restarts) else { return .missingRestart }
                    restarts &+= 1
                    endOfBands = 0
                }
                blockIndex &+= 1
                var mask = c.nonzero[block]
                if endOfBands > 0 {
                    reader.skip((mask & band).nonzeroBitCount)
                    endOfBands &-= 1
                    continue
                }
                var k = start
                while k <= end {
                    guard let symbol = reader.shortSymbol(c.lookup) ?? reader.symbol(c.table) else { return .badHuffmanCode }
                    var run = symbol &>> 4
                    let bits = symbol & 15
                    let ahead = band & (UInt64.max &<< UInt64(truncatingIfNeeded: k))
                    if bits == 0, run != 15 {
                        // End of band here and in the run's other blocks.
                        endOfBands = (1 &<< run) &+ reader.bits(run) &- 1
                        reader.skip((mask & ahead).nonzeroBitCount)
                        break
                    }
                    guard bits <= 1 else { return .badCorrectionBit }
                    // The sign of a new coefficient, then the zeros passed up to its place.
                    reader.skip(bits)
                    var zeros = ~mask & ahead
                    while run > 0 && zeros != 0 { zeros &= zeros &- 1; run &-= 1 }
                    let stop = zeros == 0 ? end &+ 1 : zeros.trailingZeroBitCount
                    let before = stop > 63 ? UInt64.max : (1 &<< UInt64(truncatingIfNeeded: stop)) &- 1
                    reader.skip((mask & ahead & before).nonzeroBitCount)
                    if bits != 0 {
                        guard stop <= end else { return .runPastBand }
                        mask |= 1 &<< UInt64(truncatingIfNeeded: stop)
                    }
                    k = stop &+ 1
                }
                c.nonzero[block] = mask
            }
        }
        return nil
    }
}
