import KithStorage

/// The SQL of the shared book, the scheduled reveal, the contributor tracker
/// and nudges.
enum OccasionBookStore {
    // MARK: The book

    /// Opens the book once the finale has happened; false if it has not (or
    /// the book was already open).
    static func openBook(_ tx: Transaction, occasionID: Int64, now: Int64) throws -> Bool {
        try tx.execute("""
            UPDATE occasions SET book_opened_at = \(now)
            WHERE id = \(occasionID) AND finale_at IS NOT NULL AND book_opened_at IS NULL
            """) > 0
    }

    static func closeBook(_ tx: Transaction, occasionID: Int64) throws {
        try tx.execute("UPDATE occasions SET book_opened_at = NULL WHERE id = \(occasionID)")
    }

    static func bookOpenedAt(_ db: some Queryable, occasionID: Int64) throws -> Int64? {
        try db.queryOne("SELECT book_opened_at FROM occasions WHERE id = \(occasionID)")?.get("book_opened_at")
    }

    // MARK: The reveal

    static func setReveal(_ tx: Transaction, occasionID: Int64, at: Int64?, zone: String?) throws {
        try tx.execute("UPDATE occasions SET reveal_at = \(at), reveal_zone = \(at == nil ? nil : zone) WHERE id = \(occasionID)")
    }

    /// The celebrant's time zone, or nil while nobody holds the celebrant link.
    static func celebrantZone(_ db: some Queryable, occasionID: Int64) throws -> String? {
        try db.queryValue("""
            SELECT u.time_zone FROM occasion_members m JOIN users u ON u.id = m.user_id
            WHERE m.occasion_id = \(occasionID) AND m.role = 'celebrant'
            """, as: String.self)
    }

    // MARK: The tracker

    /// What one member has written so far.
    struct Progress {
        var hasDare: Bool
        /// The gift's state, nil when they have not started one.
        var giftState: GiftState?
    }

    static func progress(_ db: some Queryable, occasionID: Int64) throws -> [Int64: Progress] {
        var found: [Int64: Progress] = [:]
        for row in try db.query("""
            SELECT m.user_id,
                CASE WHEN EXISTS (SELECT 1 FROM occasion_challenges c
                        WHERE c.occasion_id = m.occasion_id AND c.kind = 'dare' AND c.author_id = m.user_id) THEN 1 ELSE 0 END AS has_dare,
                (SELECT g.state FROM occasion_gifts g WHERE g.occasion_id = m.occasion_id AND g.author_id = m.user_id) AS gift_state
            FROM occasion_members m WHERE m.occasion_id = \(occasionID)
            """)
        {
            let state: String? = try row.get("gift_state")
            found[try row.get("user_id")] = Progress(
                hasDare: try row.get("has_dare") as Int64 != 0, giftState: state.flatMap(GiftState.init(rawValue:)))
        }
        return found
    }

    /// The newest nudge to each member of the occasion.
    static func lastNudges(_ db: some Queryable, occasionID: Int64) throws -> [Int64: Int64] {
        var found: [Int64: Int64] = [:]
        for row in try db.query("SELECT user_id, max(at) AS at FROM occasion_nudges WHERE occasion_id = \(occasionID) GROUP BY user_id") {
            found[try row.get("user_id")] = try row.get("at")
        }
        return found
    }

    static func lastNudge(_ db: some Queryable, occasionID: Int64, userID: Int64) throws -> Int64? {
        try db.queryOne("SELECT max(at) AS at FROM occasion_nudges WHERE occasion_id = \(occasionID) AND user_id = \(userID)")?.get("at")
    }

    static func recordNudge(_ tx: Transaction, occasionID: Int64, userID: Int64, now: Int64) throws {
        try tx.execute("INSERT INTO occasion_nudges (occasion_id, user_id, at) VALUES (\(occasionID), \(userID), \(now))")
    }
}
