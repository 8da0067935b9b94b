/// AC bands of one component, block by block over the blocks that hold image: a first pass
/// reads runs of zeros and new values, with end-of-band runs spanning blocks; a refinement adds
/// a bit to each coefficient already nonzero and places the newly nonzero ones (±1).
extension ProgressiveScan {
    /// Where each zigzag position lives among a block's kept values at each IDCT size, or -1.
    private static let slotsByScale: [Int: [Int]] = Dictionary(uniqueKeysWithValues: [1, 2, 4, 8].map { ($0, ScaledIDCT.slots(for: $0)) })

    func decodeAC(_ reader: inout JPEGEntropyReader, _ component: ProgressiveFrame.Component) -> Bool {
        guard let store = component.store, let table = members[0].ac, let slots = Self.slotsByScale[component.scale] else { return false }
        return table.lookup.withUnsafeBufferPointer { lookup in
            slots.withUnsafeBufferPointer { slots in
                let context = ACContext(values: store.values, nonzero: store.nonzero, size: component.kept * component.kept,
                                        slots: slots.baseAddress!, lookup: lookup.baseAddress!, table: table)
                var endOfBands = 0
                var restarts = 0
                var blockIndex = 0
                for y in 0..<component.blocksHigh {
                    for x in 0..<component.blocksWide {
                        if restartInterval > 0, blockIndex > 0, blockIndex % restartInterval == 0 {
                            guard reader.restart(number: restarts) else { return false }
                            restarts += 1
                            endOfBands = 0
                        }
                        blockIndex += 1
                        let block = y * component.stride + x
                        let decoded = high == 0 ? firstPass(&reader, block: block, context, endOfBands: &endOfBands)
                                                : refinement(&reader, block: block, context, endOfBands: &endOfBands)
                        guard decoded else { return false }
                    }
                }
                return true
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
    }

    /// A block's first pass over the band: runs of zeros and new values.
    @inline(__always)
    private func firstPass(_ reader: inout JPEGEntropyReader, block: Int, _ c: ACContext, endOfBands: inout Int) -> Bool {
        if endOfBands > 0 { endOfBands -= 1; return true }
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
                let coefficient = reader.difference(category: bits) * one
                mask |= 1 << UInt64(k)
                if c.slots[k] >= 0 { value[c.slots[k]] = Int16(truncatingIfNeeded: coefficient) }
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
    /// newly nonzero ones placed on the zeros.
    @inline(__always)
    private func refinement(_ reader: inout JPEGEntropyReader, block: Int, _ c: ACContext, endOfBands: inout Int) -> Bool {
        let value = c.values + block * c.size
        var mask = c.nonzero[block]
        defer { c.nonzero[block] = mask }
        let one = 1 << low
        var k = start
        @inline(__always) func correct(_ k: Int) {
            if reader.bits(1) != 0, c.slots[k] >= 0 {
                let old = Int(value[c.slots[k]])
                if old & one == 0 { value[c.slots[k]] = Int16(truncatingIfNeeded: old >= 0 ? old + one : old - one) }
            }
        }
        if endOfBands == 0 {
            while k <= end {
                guard let symbol = reader.shortSymbol(c.lookup) ?? reader.symbol(c.table) else { return false }
                var run = symbol >> 4
                let bits = symbol & 15
                var placed = 0
                if bits != 0 {
                    guard bits == 1 else { return false }
                    placed = reader.bits(1) != 0 ? one : -one
                } else if run != 15 {
                    endOfBands = (1 << run) + reader.bits(run)
                    break
                }
                // Pass `run` zero coefficients (correcting nonzero ones on the way), then place
                // the new one, if any, on the next zero.
                while k <= end {
                    if mask & (1 << UInt64(k)) != 0 {
                        correct(k)
                    } else {
                        if run == 0 { break }
                        run -= 1
                    }
                    k += 1
                }
                if placed != 0 {
                    guard k <= end else { return false }
                    mask |= 1 << UInt64(k)
                    if c.slots[k] >= 0 { value[c.slots[k]] = Int16(truncatingIfNeeded: placed) }
                }
                k += 1
            }
        }
        if endOfBands > 0 {
            // Only the nonzero ones from k to the band's end take a bit: visit their set bits
            // rather than every position.
            if k <= end {
                var pending = mask & (UInt64.max >> UInt64(63 - end)) & (UInt64.max << UInt64(k))
                while pending != 0 {
                    correct(pending.trailingZeroBitCount)
                    pending &= pending - 1
                }
            }
            endOfBands -= 1
        }
        return true
    }
}
