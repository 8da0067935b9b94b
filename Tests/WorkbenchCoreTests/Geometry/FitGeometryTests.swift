import Testing
import WorkbenchCore

/// libvips' thumbnail arithmetic, decided once: the DCT scale, what it leaves, the reduce after
/// it, and a cascade's sizes rounded once from the full image.
struct FitGeometryTests {
    private func geometry(_ w: Int, _ h: Int, box: (Int?, Int?), headroom: Double? = 1, filling: FitGeometry.Filling = .contain,
                          orientation: Int = 1) -> FitGeometry {
        FitGeometry(image: .init(w, h), orientation: orientation, width: box.0, height: box.1, filling: filling, headroom: headroom)
    }

    @Test func theDCTScaleIsTheSmallestThatCoversTheBoxWithItsHeadroom() {
        #expect(geometry(160, 100, box: (64, nil)).jpegShrink == 2)
        #expect(geometry(1024, 600, box: (256, nil)).jpegShrink == 4)
        #expect(geometry(4000, 3000, box: (64, nil)).jpegShrink == 8)
        // Never below two pixels on an axis (libvips' thumbnail), never for an image smaller than the box.
        #expect(geometry(10_000, 3, box: (64, nil)).jpegShrink == 1 && geometry(10_000, 4, box: (64, nil)).jpegShrink == 2)
        #expect(geometry(10_000, 15, box: (64, nil)).jpegShrink == 4 && geometry(10_000, 16, box: (64, nil)).jpegShrink == 8)
        #expect(geometry(60, 40, box: (64, nil)).jpegShrink == 1)
        // libvips' own rule keeps twice the target for the reduce; no headroom, no DCT scale.
        #expect(geometry(160, 100, box: (64, nil), headroom: 2).jpegShrink == 1)
        #expect(geometry(1024, 600, box: (256, nil), headroom: 2).jpegShrink == 2)
        #expect(geometry(4000, 3000, box: (64, nil), headroom: nil).jpegShrink == 1)
    }

    @Test func whatTheScaleLeavesIsReducedIntoTheBoxNeverEnlarged() {
        // libvips keeps floor(size / shrink) of libjpeg's rounded-up decode.
        let photo = geometry(1001, 667, box: (250, nil))
        #expect(photo.jpegShrink == 4 && photo.loaded == .init(250, 166) && photo.reduced == .init(250, 166) && !photo.reduces)
        #expect(geometry(80, 50, box: (64, nil), headroom: nil).reduced == .init(64, 40))
        #expect(geometry(60, 40, box: (64, nil)).reduced == .init(60, 40))
        #expect(geometry(133, 200, box: (64, 64), headroom: nil).reduced == .init(43, 64))
    }

    @Test func theReductionIsTheDecidingRatioOnBothAxesOrEachItsOwnWhenStretched() throws {
        let contain = try #require(geometry(400, 300, box: (100, 100), headroom: nil).reduction)
        #expect(contain.x == 4 && contain.y == 4)
        let stretch = try #require(geometry(400, 300, box: (100, 150), headroom: nil, filling: .stretch).reduction)
        #expect(stretch.x == 4 && stretch.y == 2)
        // A cover crops, an image inside the box is kept: libvips' thumbnail does more than reduce.
        #expect(geometry(400, 300, box: (100, 100), headroom: nil, filling: .cover).reduction == nil)
        #expect(geometry(40, 30, box: (100, 100), headroom: nil).reduction == nil)
        // After a DCT scale, the reduce is of what the scale left.
        let scaled = try #require(geometry(4000, 3000, box: (250, nil), headroom: 2).reduction)
        #expect(scaled.x == 2 && scaled.y == 2)
    }

    @Test func aCoverIsDecidedByTheLooserAxisAndATurnedPhotoByItsStoredAxes() {
        #expect(geometry(400, 300, box: (100, 100), headroom: nil, filling: .cover).factor == 3)
        #expect(geometry(400, 300, box: (100, 100), headroom: nil).factor == 4)
        // Stored 4000×3000, shown upright 3000×4000: a 750-wide box is 1000 stored rows.
        let turned = geometry(4000, 3000, box: (750, nil), headroom: 2, orientation: 6)
        #expect(turned.boxWidth == nil && turned.boxHeight == 750 && turned.factor == 4 && turned.jpegShrink == 2)
    }

    @Test func theWholeImageFittedIsRoundedOnceFromItsOwnSize() {
        // A cascade's 480 made from the 1920's pixels takes the size libvips gives the full photo.
        #expect(geometry(4032, 3024, box: (480, nil), headroom: nil).fitted == .init(480, 360))
        #expect(geometry(3001, 2001, box: (480, nil), headroom: nil).fitted == .init(480, 320))
        #expect(geometry(300, 200, box: (480, nil), headroom: nil).fitted == nil)
        #expect(geometry(400, 300, box: (100, 100), headroom: nil, filling: .cover).fitted == nil)
    }

    @Test func aFreeAxisDoesNotDecideAndTwoFreeAxesKeepTheImage() {
        #expect(FitGeometry.factor(width: 400, height: 300, boxWidth: nil, boxHeight: 150) == 2)
        #expect(FitGeometry.factor(width: 400, height: 300, boxWidth: nil, boxHeight: nil) == 1)
    }
}
