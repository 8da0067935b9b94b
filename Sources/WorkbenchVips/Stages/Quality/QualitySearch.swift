/// The search for the quality setting that meets an `EncodeTarget`, apart from encoders: it
/// picks qualities, the caller encodes and scores each (`Trial`), and it answers with the trial
/// to keep.
///
/// Both a score and a file's size grow with the quality, so each goal is a boundary between the
/// qualities that meet it and those that do not. The search starts where the last output of the
/// same node and size ended (photos of one catalogue need similar settings), steps by the slope
/// it has seen, then narrows the bracket by interpolating between its ends — in a few encodes,
/// where plain bisection over 10…100 takes seven.
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
    }

    let target: EncodeTarget

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

    func run(start: Int?, evaluate: (Int) throws -> Trial) rethrows -> Answer {
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
            let found = try boundary(in: range, from: guess, budget: target.encodes, trial: trial, goal: score, stepsByScore: true) { $0.score ?? 0 }
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
                                     goal: Double(maxBytes) + 1, stepsByScore: false) { Double($0.bytes) }
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
    /// neighbours, the range's end is reached, or the budget is spent.
    private func boundary(in range: ClosedRange<Int>, from start: Int, budget: Int, trial: (Int) throws -> Trial,
                          goal: Double, stepsByScore: Bool, value: (Trial) -> Double) rethrows -> (lowestMeeting: Trial?, highestFailing: Trial?) {
        var low: Trial?, high: Trial?
        var next = start
        var spent = 0
        var previous: Trial?
        while spent < budget {
            let t = try trial(next)
            spent += 1
            defer { previous = t }
            // Two trials on one side: the slope between them says how far the goal is.
            let slope = previous.flatMap { p -> Double? in
                guard stepsByScore, p.quality != t.quality, (value(p) >= goal) == (value(t) >= goal) else { return nil }
                let s = (value(t) - value(p)) / Double(t.quality - p.quality)
                return s > 0.05 ? s : nil
            }
            if value(t) >= goal {
                if high.map({ t.quality < $0.quality }) ?? true { high = t }
            } else if low.map({ t.quality > $0.quality }) ?? true {
                low = t
            }
            switch (low, high) {
            case let (l?, h?):
                if h.quality - l.quality <= 1 { return (high, low) }
                next = interpolated(l, h, goal: goal, value: value)
            case let (nil, h?):
                if h.quality == range.lowerBound { return (high, low) }
                next = max(range.lowerBound, h.quality - step(from: h, byScore: stepsByScore, slope: slope))
            case let (l?, nil):
                if l.quality == range.upperBound { return (high, low) }
                next = min(range.upperBound, l.quality + step(from: l, byScore: stepsByScore, slope: slope))
            case (nil, nil):
                return (high, low)
            }
        }
        return (high, low)
    }

    /// Between the bracket's ends, where a straight line through their values crosses the goal,
    /// kept a step inside each end so the bracket always shrinks.
    private func interpolated(_ low: Trial, _ high: Trial, goal: Double, value: (Trial) -> Double) -> Int {
        let (a, b) = (value(low), value(high))
        guard b > a else { return (low.quality + high.quality + 1) / 2 }
        let guess = Double(low.quality) + (goal - a) / (b - a) * Double(high.quality - low.quality)
        return Int(guess.rounded(.up)).clamped(to: (low.quality + 1)...(high.quality - 1))
    }

    /// How far to go from trials on one side of the goal: past the goal by half a point, so the
    /// next trial most likely brackets it, at the slope two trials measured or else about a
    /// point of SSIMULACRA2 a quality step (a fifth of the range for a byte budget); at least 1
    /// with a measured slope, else 2.
    private func step(from t: Trial, byScore: Bool, slope: Double?) -> Int {
        guard byScore, let score = target.score, let s = t.score else { return max(2, (target.maxQ - target.minQ) / 5) }
        let distance = abs(s - score) + 0.5
        guard let slope else { return max(2, Int(distance.rounded(.up))) }
        return max(1, Int((distance / slope).rounded(.up)))
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
