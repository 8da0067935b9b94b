extension ProgressiveFrame {
    /// The kept coefficients through each component's inverse DCT, brought to the output grid,
    /// YCbCr to RGB (JFIF's, in libjpeg's integer arithmetic); only the top left `size` when
    /// given (libvips keeps floor(size / shrink) of libjpeg's ceil). Each component's
    /// coefficients are given back as soon as its samples are made.
    mutating func render(keeping size: (width: Int, height: Int)?) throws(ProgressiveRefusal) -> ProgressiveJPEG {
        let outWidth = (width + shrink - 1) / shrink, outHeight = (height + shrink - 1) / shrink
        let keptWidth = min(size?.width ?? outWidth, outWidth), keptHeight = min(size?.height ?? outHeight, outHeight)
        let bands = components.count == 3 ? 3 : 1
        let noMemory = ProgressiveRefusal(.memory, .outOfMemory, "no memory for the \(keptWidth)×\(keptHeight) output")
        guard keptWidth > 0, keptHeight > 0 else { throw .unsupported(.emptyOutput, "an output of \(keptWidth)×\(keptHeight)") }
        guard let pixels = PixelBuffer(count: keptWidth * keptHeight * bands) else { throw noMemory }
        var planes: [PixelBuffer] = []
        var rows: [Upsampling] = []
        let padsBottom = components.contains { [.fancyDown, .fancyBoth].contains($0.upsampling) }
        for index in components.indices {
            let component = components[index]
            guard let store = component.store else { throw .damaged(.missingComponent, "component \(component.id) is in no scan") }
            let samples = try ScaledIDCT.samples(of: component, store: store)
            components[index].store = nil
            let wide = component.blocksWide * component.scale, high = component.blocksHigh * component.scale
            let upsampling = Upsampling(method: component.upsampling, samples: UnsafePointer(samples.bytes.baseAddress!), wide: wide, high: high,
                                        downsampledWidth: component.downsampledWidth, downsampledHeight: component.downsampledHeight,
                                        padsBottom: padsBottom)
            // Whole blocks cover the image's samples, and samples that map one to one the output.
            let direct = [.fullSize, .fancyDown].contains(component.upsampling)
            guard component.downsampledWidth <= wide, component.downsampledHeight <= high, !direct || keptWidth <= wide else {
                throw .unsupported(.geometry, "component \(component.id): \(wide)×\(high) samples for a \(keptWidth)-pixel row")
            }
            planes.append(samples)
            rows.append(upsampling)
        }
        guard let line = PixelBuffer(count: keptWidth * bands) else { throw noMemory }
        let out = pixels.bytes.baseAddress!, row = line.bytes.baseAddress!
        for y in 0..<keptHeight {
            if bands == 1 {
                rows[0].row(y, width: keptWidth, into: out + y * keptWidth)
                continue
            }
            for band in 0..<3 { rows[band].row(y, width: keptWidth, into: row + band * keptWidth) }
            let target = out + y &* keptWidth &* 3
            let luma = row, blue = row + keptWidth, red = row + 2 &* keptWidth
            for x in 0..<keptWidth {
                // JFIF's YCbCr → RGB, in 1/65536ths, as libjpeg's tables round it (wrapping
                // arithmetic: every term is far inside an Int).
                let y = Int(luma[x]) &<< 16 &+ 32768, cb = Int(blue[x]) &- 128, cr = Int(red[x]) &- 128
                let at = target + x &* 3
                at[0] = UInt8(clamping: (y &+ 91881 &* cr) &>> 16)
                at[1] = UInt8(clamping: (y &- 22554 &* cb &- 46802 &* cr) &>> 16)
                at[2] = UInt8(clamping: (y &+ 116130 &* cb) &>> 16)
            }
        }
        withExtendedLifetime(planes) {}
        return ProgressiveJPEG(width: keptWidth, height: keptHeight, bands: bands, buffer: pixels)
    }
}
