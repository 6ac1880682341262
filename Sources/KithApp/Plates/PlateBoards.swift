import KithTemplates

/// The one place the mode is read: the same spots drawn as one shared board
/// (collaborative: each state credited to its first spotter) or as a board
/// per player (competitive). Nothing here writes; switching mode only
/// changes which of the two drawings a page gets.
enum PlateBoards {
    struct Drawing: Equatable {
        /// The viewer's board: their own spots, and in collaborative mode
        /// everyone's, credited to whoever spotted each state first.
        var mine: [String: USMap.Status]
        /// Competitive only: every other player's board in their colour, by user id.
        var others: [Int64: [String: USMap.Status]]
    }

    /// `firstSpots` is each state's first spot, as `PlateStore.firstSpots`
    /// finds it; only collaborative drawings use it.
    static func draw(mode: PlateMode, viewerID: Int64, spots: [PlateSpot], firstSpots: [PlateSpot], players: [PlatePlayer]) -> Drawing {
        switch mode {
        case .collaborative:
            var mine: [String: USMap.Status] = [:]
            for spot in firstSpots {
                mine[spot.region] = spot.userID == viewerID ? .mine : .others(by: spot.playerName)
            }
            return Drawing(mine: mine, others: [:])
        case .competitive:
            var mine: [String: USMap.Status] = [:]
            var others: [Int64: [String: USMap.Status]] = [:]
            for player in players where player.userID != viewerID { others[player.userID] = [:] }
            for spot in spots {
                if spot.userID == viewerID {
                    mine[spot.region] = .mine
                } else {
                    others[spot.userID, default: [:]][spot.region] = .player(colour: spot.colour, name: spot.playerName)
                }
            }
            return Drawing(mine: mine, others: others)
        }
    }
}
