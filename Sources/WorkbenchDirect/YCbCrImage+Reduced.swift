extension YCbCrImage {
    /// The image reduced to `width` × `height` (Lanczos-3), each plane on its own: the chroma to
    /// half that size, with the luma's shrink so that its samples stay sited between the luma's.
    public func reduced(width: Int, height: Int) -> YCbCrImage {
        let shrinkX = Double(self.width) / Double(width), shrinkY = Double(self.height) / Double(height)
        let chroma = Self.chromaSize(width: width, height: height)
        return YCbCrImage(y: Resampler.reduce(y, width: width, height: height, shrinkX: shrinkX, shrinkY: shrinkY),
                          cb: Resampler.reduce(cb, width: chroma.width, height: chroma.height, shrinkX: shrinkX, shrinkY: shrinkY),
                          cr: Resampler.reduce(cr, width: chroma.width, height: chroma.height, shrinkX: shrinkX, shrinkY: shrinkY))
    }
}
