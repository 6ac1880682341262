import KithTemplates

/// A trip's numbers, worked out from its spots alone: how long it took,
/// the pace, the first and last region, who found most, and the running
/// count day by day. Pure, so every number can be checked by hand.
struct PlateTripStats: Equatable {
    static let day: Int64 = 86_400
    /// The chart stops here; a year-long game is still one picture.
    static let chartDays = 366

    /// Regions counted (the group's, or every player's spots in a race).
    var counted: Int
    var target: Int
    /// Days from the first spot to the spot that completed a board.
    var daysToFinish: Int?
    /// Days the trip has run, from its first spot to its end (or now), at least 1.
    var days: Int
    var pacePerDay: Double
    var firstRegion: String?
    var lastRegion: String?
    /// Best first; ties by name.
    var leaders: [(name: String, count: Int)]
    /// The running count at the end of each day, day 1 first.
    var daily: [Int]

    static func == (lhs: PlateTripStats, rhs: PlateTripStats) -> Bool {
        lhs.counted == rhs.counted && lhs.target == rhs.target && lhs.daysToFinish == rhs.daysToFinish && lhs.days == rhs.days
            && lhs.pacePerDay == rhs.pacePerDay && lhs.firstRegion == rhs.firstRegion && lhs.lastRegion == rhs.lastRegion
            && lhs.leaders.map(\.name) == rhs.leaders.map(\.name) && lhs.leaders.map(\.count) == rhs.leaders.map(\.count)
            && lhs.daily == rhs.daily
    }

    /// `spots` oldest first, only regions the rules count. Collaborative
    /// trips count each region once, for its first spotter; a race counts
    /// every player's spots, and is finished when one player's board is.
    static func make(mode: PlateMode, spots: [PlateSpot], target: Int, endedAt: Int64?, now: Int64) -> PlateTripStats {
        let counted = mode == .collaborative ? PlateMissingView.firstSpots(spots) : spots
        guard let first = counted.first else {
            return PlateTripStats(
                counted: 0, target: target, daysToFinish: nil, days: 1, pacePerDay: 0, firstRegion: nil, lastRegion: nil, leaders: [], daily: [])
        }
        let start = first.spottedAt
        let finishedAt: Int64?
        switch mode {
        case .collaborative:
            finishedAt = target > 0 && counted.count >= target ? counted[target - 1].spottedAt : nil
        case .competitive:
            var perPlayer: [Int64: Int] = [:]
            finishedAt = counted.first { spot in
                perPlayer[spot.userID, default: 0] += 1
                return target > 0 && perPlayer[spot.userID] == target
            }?.spottedAt
        }
        let end = max(finishedAt ?? endedAt ?? now, counted.last?.spottedAt ?? start)
        let days = dayNumber(end, from: start)
        var tally: [String: Int] = [:]
        for spot in counted { tally[spot.playerName, default: 0] += 1 }
        let leaders = tally.map { (name: $0.key, count: $0.value) }.sorted { ($1.count, $0.name) < ($0.count, $1.name) }
        var daily = [Int](repeating: 0, count: min(days, chartDays))
        for spot in counted {
            let index = min(dayNumber(spot.spottedAt, from: start), daily.count) - 1
            daily[index] += 1
        }
        for index in daily.indices.dropFirst() { daily[index] += daily[index - 1] }
        return PlateTripStats(
            counted: counted.count, target: target, daysToFinish: finishedAt.map { dayNumber($0, from: start) }, days: days,
            pacePerDay: Double(counted.count) / Double(days), firstRegion: first.regionName, lastRegion: counted.last?.regionName,
            leaders: leaders, daily: daily)
    }

    /// Day 1 is the first 24 hours from `start`.
    static func dayNumber(_ instant: Int64, from start: Int64) -> Int {
        Int(max(0, instant - start) / day) + 1
    }
}
