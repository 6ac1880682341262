import KithStorage

/// A game's trip: when it ended, and the trips before and after it. A trip
/// is a game; ending it keeps its board as it was, and the next trip is a
/// new game with the same players that points back at this one.
enum PlateTripStore {
    struct Trip: Sendable, Equatable {
        let id: Int64
        let name: String
        let createdAt: Int64
        let endedAt: Int64?
    }

    /// When the trip ended; nil while it is under way.
    static func endedAt(_ db: some Queryable, gameID: Int64) throws -> Int64? {
        try db.queryValue("SELECT ended_at FROM plate_games WHERE id = \(gameID)", as: Int64?.self) ?? nil
    }

    static func createdAt(_ db: some Queryable, gameID: Int64) throws -> Int64 {
        try db.queryValue("SELECT created_at FROM plate_games WHERE id = \(gameID)", as: Int64.self) ?? 0
    }

    /// Ends the trip; false when it had ended already.
    static func end(_ tx: Transaction, gameID: Int64, now: Int64) throws -> Bool {
        try tx.execute("UPDATE plate_games SET ended_at = \(now) WHERE id = \(gameID) AND ended_at IS NULL") == 1
    }

    /// Takes the trip up again; false when it was under way already.
    static func resume(_ tx: Transaction, gameID: Int64) throws -> Bool {
        try tx.execute("UPDATE plate_games SET ended_at = NULL WHERE id = \(gameID) AND ended_at IS NOT NULL") == 1
    }

    /// The trip started after this one, if any.
    static func next(_ db: some Queryable, gameID: Int64) throws -> Int64? {
        try db.queryValue("SELECT id FROM plate_games WHERE previous_id = \(gameID) ORDER BY id LIMIT 1", as: Int64.self)
    }

    /// A new game like this one (name, mode, rules) with the same players in
    /// the same roles and colours, pointing back at it. Returns its id.
    static func startNext(_ tx: Transaction, after gameID: Int64, now: Int64) throws -> Int64 {
        let id = try tx.insertReturningID("""
            INSERT INTO plate_games (name, mode, ruleset, created_at, previous_id)
            SELECT name, mode, ruleset, \(now), id FROM plate_games WHERE id = \(gameID)
            """)
        try tx.execute("""
            INSERT INTO plate_players (game_id, user_id, role, colour, joined_at)
            SELECT \(id), user_id, role, colour, joined_at FROM plate_players WHERE game_id = \(gameID)
            """)
        return id
    }

    /// The earlier trips this viewer played in, newest first, following
    /// each trip's link back (at most `limit`).
    static func earlier(_ db: some Queryable, gameID: Int64, userID: Int64, limit: Int = 20) throws -> [Trip] {
        try db.query("""
            WITH RECURSIVE chain(id, depth) AS (
                SELECT previous_id, 1 FROM plate_games WHERE id = \(gameID) AND previous_id IS NOT NULL
                UNION ALL
                SELECT g.previous_id, chain.depth + 1 FROM plate_games g JOIN chain ON g.id = chain.id
                WHERE g.previous_id IS NOT NULL AND chain.depth < \(limit)
            )
            SELECT g.id, g.name, g.created_at, g.ended_at FROM chain
            JOIN plate_games g ON g.id = chain.id
            JOIN plate_players p ON p.game_id = g.id AND p.user_id = \(userID)
            ORDER BY chain.depth
            """).map { row in
            Trip(id: try row.get("id"), name: try row.get("name"), createdAt: try row.get("created_at"), endedAt: try row.get("ended_at"))
        }
    }
}
