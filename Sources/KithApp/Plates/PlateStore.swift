import KithStorage

/// One spotted plate: who, which region, when. Written the same way in both modes.
struct PlateSpot: Sendable, Equatable {
    let id: Int64
    let userID: Int64
    let playerName: String
    let colour: Int
    let region: String
    let regionName: String
    let spottedAt: Int64
    /// Where it was seen, as the spotter typed it.
    let note: String?

    /// The columns `init(row:)` reads, from `plate_spots s` joined to its
    /// player `p`, user `u` and region `r`.
    static let columns: SQL = "s.id, s.user_id, u.display_name, p.colour, s.region, r.name AS region_name, s.spotted_at, s.note"
    static let joins: SQL = """
        FROM plate_spots s
        JOIN plate_players p ON p.game_id = s.game_id AND p.user_id = s.user_id
        JOIN users u ON u.id = s.user_id
        JOIN plate_regions r ON r.code = s.region
        """

    init(row: Row) throws {
        id = try row.get("id")
        userID = try row.get("user_id")
        playerName = try row.get("display_name")
        colour = Int(try row.get("colour", as: Int64.self))
        region = try row.get("region")
        regionName = try row.get("region_name")
        spottedAt = try row.get("spotted_at")
        note = try row.get("note")
    }
}

/// A player with their score, counted from their spots in the query.
struct PlatePlayer: Sendable, Equatable {
    let userID: Int64
    let name: String
    let role: PlateRole
    let colour: Int
    let joinedAt: Int64
    /// Regions of the game's ruleset this player has spotted.
    let score: Int
    /// Those regions' points in the ruleset (the score when a game scores by rarity).
    var points: Int = 0
}

/// A game on someone's dashboard.
struct PlateGameSummary: Sendable, Equatable {
    let id: Int64
    let name: String
    let mode: PlateMode
    /// How many regions the rules count (50, or 51 with DC).
    let target: Int
    /// The group's count in a collaborative game, the viewer's own in a competitive one.
    let progress: Int
    let players: Int
    /// When the trip ended; nil while it is under way.
    var endedAt: Int64? = nil
}

/// A region a game can count, for the by-name list.
struct PlateRegion: Sendable, Equatable {
    let code: String
    let name: String
}

/// The SQL of plate games: games, players and spots. Scores and progress are
/// always counted from `plate_spots` here, never kept as counters.
enum PlateStore {
    /// The longest game name, in Unicode scalars (what SQLite's `length` counts).
    static let nameLimit = 60
    /// The longest place note on a spot, as the migration's CHECK allows.
    static let noteLimit = 80

    // MARK: Games

    static func scope(_ db: some Queryable, gameID: Int64, userID: Int64) throws -> PlateGameScope? {
        guard let row = try db.queryOne("""
            SELECT plate_games.name, plate_games.mode, plate_games.ruleset, plate_games.scoring, plate_players.role
            FROM plate_games JOIN plate_players ON plate_players.game_id = plate_games.id
            WHERE plate_games.id = \(gameID) AND plate_players.user_id = \(userID)
            """)
        else { return nil }
        return PlateGameScope(
            id: gameID, name: try row.get("name"), mode: try row.get("mode"), ruleset: try row.get("ruleset"),
            scoring: try row.get("scoring"), role: try row.get("role"), userID: userID)
    }

    /// A new game with its host, in the caller's transaction.
    static func create(
        _ tx: Transaction, name: String, mode: PlateMode, ruleset: String, scoring: PlateScoring = .count, hostID: Int64, now: Int64
    ) throws -> Int64 {
        let id = try tx.insertReturningID("""
            INSERT INTO plate_games (name, mode, ruleset, scoring, created_at) VALUES (\(name), \(mode), \(ruleset), \(scoring), \(now))
            """)
        try tx.execute("""
            INSERT INTO plate_players (game_id, user_id, role, colour, joined_at) VALUES (\(id), \(hostID), 'host', 0, \(now))
            """)
        return id
    }

    /// The game's name, for invite previews; nil when there is no such game.
    static func name(_ db: some Queryable, gameID: Int64) throws -> String? {
        try db.queryValue("SELECT name FROM plate_games WHERE id = \(gameID)", as: String.self)
    }

    static func update(_ tx: Transaction, gameID: Int64, name: String, ruleset: String, scoring: PlateScoring) throws {
        try tx.execute("UPDATE plate_games SET name = \(name), ruleset = \(ruleset), scoring = \(scoring) WHERE id = \(gameID)")
    }

    static func setMode(_ tx: Transaction, gameID: Int64, mode: PlateMode) throws {
        try tx.execute("UPDATE plate_games SET mode = \(mode) WHERE id = \(gameID)")
    }

    /// Every game `userID` plays, newest first, with its progress counted
    /// from the spots: the group's in a collaborative game, the viewer's own
    /// in a competitive one.
    static func games(_ db: some Queryable, userID: Int64) throws -> [PlateGameSummary] {
        try db.query("""
            SELECT g.id, g.name, g.mode,
                (SELECT count(*) FROM plate_ruleset_regions r WHERE r.ruleset = g.ruleset) AS target,
                (SELECT count(DISTINCT s.region) FROM plate_spots s
                    JOIN plate_ruleset_regions r ON r.ruleset = g.ruleset AND r.region = s.region
                    WHERE s.game_id = g.id AND (g.mode = 'collaborative' OR s.user_id = \(userID))) AS progress,
                (SELECT count(*) FROM plate_players p WHERE p.game_id = g.id) AS players, g.ended_at
            FROM plate_players me JOIN plate_games g ON g.id = me.game_id
            WHERE me.user_id = \(userID)
            ORDER BY g.ended_at IS NOT NULL, g.created_at DESC, g.id DESC
            """).map { row in
            PlateGameSummary(
                id: try row.get("id"), name: try row.get("name"), mode: try row.get("mode"), target: Int(try row.get("target", as: Int64.self)),
                progress: Int(try row.get("progress", as: Int64.self)), players: Int(try row.get("players", as: Int64.self)),
                endedAt: try row.get("ended_at"))
        }
    }

    /// The regions a ruleset counts, by name.
    static func regions(_ db: some Queryable, ruleset: String) throws -> [PlateRegion] {
        try db.query("""
            SELECT plate_regions.code, plate_regions.name FROM plate_ruleset_regions
            JOIN plate_regions ON plate_regions.code = plate_ruleset_regions.region
            WHERE plate_ruleset_regions.ruleset = \(ruleset)
            ORDER BY plate_regions.name
            """).map { PlateRegion(code: try $0.get("code"), name: try $0.get("name")) }
    }

    /// The region with this code when the ruleset counts it.
    static func region(_ db: some Queryable, code: String, ruleset: String) throws -> PlateRegion? {
        try db.queryOne("""
            SELECT plate_regions.code, plate_regions.name FROM plate_ruleset_regions
            JOIN plate_regions ON plate_regions.code = plate_ruleset_regions.region
            WHERE plate_ruleset_regions.ruleset = \(ruleset) AND plate_regions.code = \(code)
            """).map { PlateRegion(code: try $0.get("code"), name: try $0.get("name")) }
    }

    // MARK: Players

    /// Everyone in the game with their score, best first; ties go to whoever
    /// joined first. The score counts only regions the rules count; in a
    /// game scored by rarity it is their points, and the order follows them.
    static func players(_ db: some Queryable, gameID: Int64) throws -> [PlatePlayer] {
        try db.query("""
            SELECT p.user_id, u.display_name, p.role, p.colour, p.joined_at, count(r.region) AS score,
                CAST(coalesce(sum(r.points), 0) AS BIGINT) AS points
            FROM plate_players p
            JOIN plate_games g ON g.id = p.game_id
            JOIN users u ON u.id = p.user_id
            LEFT JOIN plate_spots s ON s.game_id = p.game_id AND s.user_id = p.user_id
            LEFT JOIN plate_ruleset_regions r ON r.ruleset = g.ruleset AND r.region = s.region
            WHERE p.game_id = \(gameID)
            GROUP BY p.game_id, p.user_id, u.id, g.id
            ORDER BY CASE g.scoring WHEN 'rarity' THEN coalesce(sum(r.points), 0) ELSE count(r.region) END DESC, p.joined_at, p.user_id
            """).map { row in
            PlatePlayer(
                userID: try row.get("user_id"), name: try row.get("display_name"), role: try row.get("role"),
                colour: Int(try row.get("colour", as: Int64.self)), joinedAt: try row.get("joined_at"),
                score: Int(try row.get("score", as: Int64.self)), points: Int(try row.get("points", as: Int64.self)))
        }
    }

    /// How many spots each player has in the game, every region counted.
    static func spotCounts(_ db: some Queryable, gameID: Int64) throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        for row in try db.query("SELECT user_id, count(*) AS spots FROM plate_spots WHERE game_id = \(gameID) GROUP BY user_id") {
            counts[try row.get("user_id")] = Int(try row.get("spots", as: Int64.self))
        }
        return counts
    }

    static func playerIDs(_ db: some Queryable, gameID: Int64) throws -> [Int64] {
        try db.query("SELECT user_id FROM plate_players WHERE game_id = \(gameID) ORDER BY joined_at, user_id").map { try $0.get("user_id") }
    }

    /// Adds a player with the first colour nobody in the game has; false
    /// when they were already in.
    static func addPlayer(_ tx: Transaction, gameID: Int64, userID: Int64, now: Int64) throws -> Bool {
        let taken = Set(try tx.query("SELECT colour FROM plate_players WHERE game_id = \(gameID)").map {
            Int(try $0.get("colour", as: Int64.self))
        })
        let count = try tx.queryValue("SELECT count(*) FROM plate_players WHERE game_id = \(gameID)", as: Int64.self) ?? 0
        let colour = (0..<8).first { !taken.contains($0) } ?? Int(count % 8)
        let added = try tx.execute("""
            INSERT INTO plate_players (game_id, user_id, role, colour, joined_at)
            VALUES (\(gameID), \(userID), 'player', \(colour), \(now))
            ON CONFLICT (game_id, user_id) DO NOTHING
            """)
        return added == 1
    }

    /// Takes a player out of a game; their spots in it go with them (the
    /// foreign key cascades). A leaving host hands the role to the
    /// longest-standing other player; a game left with nobody is deleted.
    /// Returns false when they were not in the game.
    static func removePlayer(_ tx: Transaction, gameID: Int64, userID: Int64) throws -> Bool {
        let role = try tx.queryValue(
            "SELECT role FROM plate_players WHERE game_id = \(gameID) AND user_id = \(userID)", as: PlateRole.self)
        guard let role else { return false }
        try tx.execute("DELETE FROM plate_players WHERE game_id = \(gameID) AND user_id = \(userID)")
        let remaining = try tx.queryValue("SELECT count(*) FROM plate_players WHERE game_id = \(gameID)", as: Int64.self) ?? 0
        if remaining == 0 {
            try tx.execute("DELETE FROM plate_games WHERE id = \(gameID)")
        } else if role == .host {
            try tx.execute("""
                UPDATE plate_players SET role = 'host'
                WHERE game_id = \(gameID) AND user_id = (
                    SELECT user_id FROM plate_players WHERE game_id = \(gameID) ORDER BY joined_at, user_id LIMIT 1)
                """)
        }
        return true
    }

    /// Every game the user plays, for account deletion.
    static func gameIDs(_ db: some Queryable, userID: Int64) throws -> [Int64] {
        try db.query("SELECT game_id FROM plate_players WHERE user_id = \(userID) ORDER BY game_id").map { try $0.get("game_id") }
    }

    // MARK: Spots

    /// Records a spot; false when this player had already spotted the region
    /// in this game (spotting twice is harmless).
    static func spot(_ tx: Transaction, gameID: Int64, userID: Int64, region: String, now: Int64, note: String? = nil) throws -> Bool {
        try tx.execute("""
            INSERT INTO plate_spots (game_id, user_id, region, spotted_at, note) VALUES (\(gameID), \(userID), \(region), \(now), \(note))
            ON CONFLICT (game_id, user_id, region) DO NOTHING
            """) == 1
    }

    /// A spot in this game, whoever made it.
    static func spot(_ db: some Queryable, id: Int64, gameID: Int64) throws -> PlateSpot? {
        try spots(db, gameID: gameID, filter: "AND s.id = \(id)", limit: 1).first
    }

    /// Deletes a spot only when it is the player's own; false otherwise.
    static func undo(_ tx: Transaction, spotID: Int64, gameID: Int64, userID: Int64) throws -> Bool {
        try tx.execute("DELETE FROM plate_spots WHERE id = \(spotID) AND game_id = \(gameID) AND user_id = \(userID)") == 1
    }

    /// Every spot of the game, oldest first: what every board is drawn from.
    static func spots(_ db: some Queryable, gameID: Int64) throws -> [PlateSpot] {
        try spots(db, gameID: gameID, filter: "", limit: .max)
    }

    /// The newest spots, newest first, for the feed.
    static func recentSpots(_ db: some Queryable, gameID: Int64, limit: Int) throws -> [PlateSpot] {
        try spots(db, gameID: gameID, filter: "", limit: limit, newestFirst: true)
    }

    /// One region's spots in the game, oldest first.
    static func spots(_ db: some Queryable, gameID: Int64, region: String) throws -> [PlateSpot] {
        try spots(db, gameID: gameID, filter: "AND s.region = \(region)", limit: .max)
    }

    // No limit is `.max`: SQLite's `LIMIT -1` is an error on PostgreSQL.
    private static func spots(_ db: some Queryable, gameID: Int64, filter: SQL, limit: Int, newestFirst: Bool = false) throws -> [PlateSpot] {
        let order: SQL = newestFirst ? "ORDER BY s.spotted_at DESC, s.id DESC" : "ORDER BY s.spotted_at, s.id"
        return try db.query("""
            SELECT \(PlateSpot.columns) \(PlateSpot.joins)
            WHERE s.game_id = \(gameID) \(filter)
            \(order) LIMIT \(limit)
            """).map(PlateSpot.init(row:))
    }

    /// The group's progress: regions the rules count that anyone has spotted.
    static func groupProgress(_ db: some Queryable, gameID: Int64) throws -> Int {
        Int(try db.queryValue("""
            SELECT count(DISTINCT s.region) FROM plate_spots s
            JOIN plate_games g ON g.id = s.game_id
            JOIN plate_ruleset_regions r ON r.ruleset = g.ruleset AND r.region = s.region
            WHERE s.game_id = \(gameID)
            """, as: Int64.self) ?? 0)
    }

    /// The group's points in a game scored by rarity: each region anyone
    /// has spotted counts once, at its points in the game's ruleset.
    static func groupPoints(_ db: some Queryable, gameID: Int64) throws -> Int {
        Int(try db.queryValue("""
            SELECT CAST(coalesce(sum(r.points), 0) AS BIGINT) FROM plate_ruleset_regions r
            JOIN plate_games g ON g.ruleset = r.ruleset
            WHERE g.id = \(gameID) AND r.region IN (SELECT region FROM plate_spots WHERE game_id = \(gameID))
            """, as: Int64.self) ?? 0)
    }

    /// Each region's first spot (the player credited on a collaborative board).
    static func firstSpots(_ db: some Queryable, gameID: Int64) throws -> [PlateSpot] {
        try db.query("""
            SELECT * FROM (
                SELECT \(PlateSpot.columns),
                    row_number() OVER (PARTITION BY s.region ORDER BY s.spotted_at, s.id) AS position
                \(PlateSpot.joins)
                WHERE s.game_id = \(gameID)) AS firsts
            WHERE position = 1
            ORDER BY spotted_at, id
            """).map(PlateSpot.init(row:))
    }

    // MARK: Celebrations

    /// Whether this player has watched this game's celebration already.
    static func celebrationSeen(_ db: some Queryable, gameID: Int64, userID: Int64) throws -> Bool {
        try db.queryValue(
            "SELECT count(*) FROM plate_celebrations_seen WHERE game_id = \(gameID) AND user_id = \(userID)", as: Int.self) == 1
    }

    /// Records it; a second time (another tab) changes nothing.
    static func markCelebrationSeen(_ tx: Transaction, gameID: Int64, userID: Int64, now: Int64) throws {
        try tx.execute("""
            INSERT INTO plate_celebrations_seen (game_id, user_id, at) VALUES (\(gameID), \(userID), \(now))
            ON CONFLICT (game_id, user_id) DO NOTHING
            """)
    }
}
