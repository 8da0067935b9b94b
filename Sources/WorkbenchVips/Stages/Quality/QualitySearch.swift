import Foundation

/// The search for the quality setting that meets an `EncodeTarget`, apart from encoders: it
/// picks qualities, the caller encodes and scores each (`Trial`), and it answers with the trial
/// to keep.
///
/// Both a score and a file's size grow with the quality, so each goal is a boundary between the
/// qualities that meet it and those that do not. The search starts where the last outputs of the
/// same node and size ended (`QualityAnswers`: photos of one catalogue need similar settings),
/// steps by the slope the last searches measured, then narrows the bracket by interpolating
/// between its ends; a trial scoring within the target's tolerance above the goal ends it at
/// once. In two or three encodes, where plain bisection over 10…100 takes seven.
struct QualitySearch {
    /// One encode: its quality setting, its size, and its score when the goal has one.
    struct Trial: Equatable {
        let quality: Int
        let bytes: Int
        let score: Double?
    }

    struct Answer {
        let chosen: Trial
        /// Every encode, in the order made.
        let trials: [Trial]
        /// False when no quality in the range meets the target: `chosen` is then the closest.
        let met: Bool

        /// Score points a quality step, measured between this search's trials: where the next
        /// search of the same output starts stepping from. Jumps of more than 4 a step (JPEG's
        /// chroma subsampling ending at Q 90) are not slopes.
        var slope: Double? {
            let scored = trials.compactMap { t in t.score.map { (q: t.quality, s: $0) } }.sorted { $0.q < $1.q }
            let slopes = zip(scored, scored.dropFirst()).map { ($1.s - $0.s) / Double($1.q - $0.q) }.filter { $0 > 0.05 && $0 < 4 }
            guard !slopes.isEmpty else { return nil }
            return slopes.sorted()[slopes.count / 2]
        }
    }

    let target: EncodeTarget
    /// A quality at which the score may leap, not follow the slope: libvips' JPEG and AVIF savers
    /// stop subsampling chroma at Q 90 unless told otherwise (up to 9 points more for a JPEG of
    /// a colourful photo, 10.7 for an AVIF). Slopes are not measured across it, nor lines drawn
    /// over it (`EncodeStage.chromaJump`).
    var jump: Int?

    init(target: EncodeTarget, jump: Int? = nil) {
        self.target = target
        self.jump = jump
    }

    /// Whether `a` and `b` lie on opposite sides of the jump.
    private func apart(_ a: Int, _ b: Int) -> Bool {
        guard let jump else { return false }
        return (a < jump) != (b < jump)
    }

    /// Where a search with no earlier answer starts, by the score asked for: libjpeg's quality
    /// scale against SSIMULACRA2 on a 480 px photo (Q 30 → 46, 60 → 68, 80 → 81, 95 → 93).
    static func firstGuess(for score: Double) -> Int {
        let points: [(score: Double, quality: Double)] = [(46, 30), (68, 60), (81, 80), (93, 95)]
        guard score > points[0].score else { return 30 }
        for (a, b) in zip(points, points.dropFirst()) where score <= b.score {
            return Int((a.quality + (score - a.score) / (b.score - a.score) * (b.quality - a.quality)).rounded())
        }
        return 98
    }

    /// `start`: the quality to try first (else a guess from the score); `slope`: score points a
    /// quality step, as earlier searches measured it (else about one).
    func run(start: Int?, slope: Double? = nil, evaluate: (Int) throws -> Trial) rethrows -> Answer {
        var trials: [Trial] = []
        func trial(_ quality: Int) throws -> Trial {
            if let made = trials.first(where: { $0.quality == quality }) { return made }
            let made = try evaluate(quality)
            trials.append(made)
            return made
        }
        let range = target.minQ...target.maxQ
        var ceiling = target.maxQ
        var chosen: Trial?
        var met = true
        if let score = target.score {
            let guess = (start ?? Self.firstGuess(for: score)).clamped(to: range)
            let found = try boundary(in: range, from: guess, budget: target.encodes, trial: trial, goal: score,
                                     within: target.tolerance, slope: slope) { $0.score ?? 0 }
            // Reached: the lowest quality that reaches it. Not reached: the highest tried.
            chosen = found.lowestMeeting ?? found.highestFailing
            met = found.lowestMeeting != nil
            ceiling = chosen?.quality ?? target.maxQ
        }
        if let maxBytes = target.maxBytes, chosen.map({ $0.bytes > maxBytes }) ?? true {
            let within = target.minQ...max(target.minQ, ceiling)
            let guess = chosen.map { max(target.minQ, $0.quality - 5) } ?? start ?? within.upperBound
            let left = max(2, target.encodes - trials.count)
            // The budget's boundary: the highest quality whose file fits ("meets" = too big).
            let found = try boundary(in: within, from: guess.clamped(to: within), budget: left, trial: trial,
                                     goal: Double(maxBytes) + 1, within: nil, slope: nil) { Double($0.bytes) }
            if let fits = found.highestFailing {
                chosen = fits
                met = met && target.score.map { (fits.score ?? 0) >= $0 } ?? true
            } else {
                chosen = try trial(target.minQ)
                met = false
            }
        }
        // `chosen` is set above: a score or a budget is always given (`EncodeTarget.problem`).
        let kept = try chosen ?? trial(target.maxQ)
        return Answer(chosen: kept, trials: trials, met: met)
    }

    /// The qualities around the boundary where `value` reaches `goal` as the quality rises: the
    /// lowest tried that reaches it, and the highest tried that does not, once they are
    /// neighbours, the range's end is reached, the budget is spent, or (with `within`, for a
    /// score) a trial reaches the goal by no more than `within`.
    ///
    /// `slope` (value a quality step) steers the steps: they aim at the middle of the accepted
    /// band, so the next trial most likely lands in it. With none, a score steps by about a
    /// point a quality step and a byte budget by a fifth of the range.
    private func boundary(in range: ClosedRange<Int>, from start: Int, budget: Int, trial: (Int) throws -> Trial,
                          goal: Double, within: Double?, slope prior: Double?, value: (Trial) -> Double) rethrows -> (lowestMeeting: Trial?, highestFailing: Trial?) {
        let aim = goal + (within ?? 0) / 2
        var low: Trial?, high: Trial?
        var next = start
        var spent = 0
        var slope = prior
        var previous: Trial?
        // How many trials in a row left each end of the bracket where it was (`interpolated`).
        var kept = (low: 0, high: 0)
        // Whether the last step down was held to half way (the next one is not).
        var halved = false
        while spent < budget {
            let t = try trial(next)
            spent += 1
            defer { previous = t }
            // Two trials on one side: the slope between them says how far the goal is. Two above
            // it, five or more steps apart, scoring the same: the quality does not move the score
            // (a flat graphic scores 100 at any), so the range's lowest is tried next.
            var flat = false
            if within != nil, let p = previous, p.quality != t.quality, !apart(p.quality, t.quality), (value(p) >= goal) == (value(t) >= goal) {
                let s = (value(t) - value(p)) / Double(t.quality - p.quality)
                if s > 0.05 { slope = s }
                flat = value(t) >= goal && abs(s) <= 0.01 && abs(t.quality - p.quality) >= 5
            }
            if value(t) >= goal {
                if high.map({ t.quality < $0.quality }) ?? true { high = t }
                if let within, value(t) <= goal + within { return (t, low) }
                kept = (low.map { _ in kept.low + 1 } ?? 0, 0)
            } else {
                if low.map({ t.quality > $0.quality }) ?? true { low = t }
                kept = (0, high.map { _ in kept.high + 1 } ?? 0)
            }
            let wasHalved = halved
            halved = false
            switch (low, high) {
            case let (l?, h?):
                if h.quality - l.quality <= 1 { return (high, low) }
                if within != nil, let jump, apart(l.quality, h.quality) {
                    // Below the jump the slope holds; just above it is the lowest the upper part has.
                    next = l.quality == jump - 1 ? jump
                        : (l.quality + step(aim - value(l), slope: slope ?? 1, range: range)).clamped(to: (l.quality + 1)...(jump - 1))
                } else {
                    next = interpolated(l, h, aim: min(aim, value(h)), kept: kept, value: value)
                }
            case let (nil, h?):
                if h.quality == range.lowerBound { return (high, low) }
                // At most half way down to the range's end: a score flattens toward the top, so a
                // slope measured up there understates how fast it falls below (a grey photo's
                // Q 78 and 64 sent the next trial to Q 11, 32 points under the target). Not twice
                // in a row: a target under the whole range would be walked down to by halves.
                let down = step(value(h) - aim, slope: within == nil ? nil : slope ?? 1, range: range)
                let half = max(1, (h.quality - range.lowerBound + 1) / 2)
                let holds = within != nil && !wasHalved && down > half
                next = flat ? range.lowerBound : max(range.lowerBound, h.quality - (holds ? half : down))
                halved = holds
                // A step from above the jump stops at it: the slope says nothing of what is below.
                if let jump, h.quality > jump, next < jump { next = jump }
            case let (l?, nil):
                if l.quality == range.upperBound { return (high, low) }
                next = min(range.upperBound, l.quality + step(aim - value(l), slope: within == nil ? nil : slope ?? 1, range: range))
                // A step from below the jump stops short of it, as the quality below may be
                // enough; from just below it, the next is the jump's own.
                if let jump, l.quality < jump, next >= jump { next = l.quality == jump - 1 ? jump : jump - 1 }
            case (nil, nil):
                return (high, low)
            }
        }
        return (high, low)
    }

    /// Between the bracket's ends, where a straight line through their values crosses `aim`,
    /// kept a step inside each end so the bracket always shrinks. An end kept by two trials in a
    /// row counts half as far from `aim`, a quarter after three (the Illinois rule): on a score
    /// that flattens toward the top, a straight line from a far low end lands short again and
    /// again (a grey photo: Q 51, 43, 38 toward a target at Q 33).
    private func interpolated(_ low: Trial, _ high: Trial, aim: Double, kept: (low: Int, high: Int), value: (Trial) -> Double) -> Int {
        func weight(_ times: Int) -> Double { times >= 2 ? pow(0.5, Double(times - 1)) : 1 }
        let a = aim - (aim - value(low)) * weight(kept.low), b = aim + (value(high) - aim) * weight(kept.high)
        guard b > a else { return (low.quality + high.quality + 1) / 2 }
        let guess = Double(low.quality) + (aim - a) / (b - a) * Double(high.quality - low.quality)
        return Int(guess.rounded(.up)).clamped(to: (low.quality + 1)...(high.quality - 1))
    }

    /// Quality steps to cover `distance` (value) at `slope`, at least one; a fifth of the range
    /// without a slope (a byte budget: sizes grow too unevenly with quality to step by).
    private func step(_ distance: Double, slope: Double?, range: ClosedRange<Int>) -> Int {
        guard let slope else { return max(2, (range.upperBound - range.lowerBound) / 5) }
        return max(1, Int((abs(distance) / slope).rounded()))
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
