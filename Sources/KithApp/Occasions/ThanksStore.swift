import KithMedia
import KithStorage

/// Every SQL statement about thank-you replies and reactions on gifts.
/// Who may see or write them is decided in `OccasionThanks`, not here.
enum ThanksStore {

    struct Thanks: Sendable {
        var id: Int64
        var giftID: Int64
        var authorID: Int64
        var body: String
        var sha256: String?
        var mimeType: String?
        var mediaKind: MediaKind?
        var durationMs: Int?
        var at: Int64
        /// A photo's size and variants, once known.
        var photo: PhotoVariants.Photo?
    }

    static let columns: SQL = """
        t.id, t.gift_id, t.author_id, t.body, t.sha256, f.mime_type, t.media_kind, t.duration_ms, t.at,
        \(PhotoVariants.columns("t.sha256"))
        """

    static func thanks(_ row: Row) throws -> Thanks {
        Thanks(
            id: try row.get("id"), giftID: try row.get("gift_id"), authorID: try row.get("author_id"), body: try row.get("body"),
            sha256: try row.get("sha256"), mimeType: try row.get("mime_type"),
            mediaKind: (try row.get("media_kind") as String?).flatMap(MediaKind.init(rawValue:)), durationMs: try row.get("duration_ms"),
            at: try row.get("at"), photo: try PhotoVariants.photo(row))
    }

    static func thanks(_ db: some Queryable, occasionID: Int64, giftID: Int64) throws -> Thanks? {
        try db.queryOne("""
            SELECT \(columns) FROM occasion_thanks t LEFT JOIN media_files f ON f.sha256 = t.sha256
            WHERE t.occasion_id = \(occasionID) AND t.gift_id = \(giftID)
            """).map(thanks)
    }

    static func thanks(_ db: some Queryable, occasionID: Int64, id: Int64) throws -> Thanks? {
        try db.queryOne("""
            SELECT \(columns) FROM occasion_thanks t LEFT JOIN media_files f ON f.sha256 = t.sha256
            WHERE t.occasion_id = \(occasionID) AND t.id = \(id)
            """).map(thanks)
    }

    /// Every thank-you in the occasion, oldest first, for the timeline.
    static func all(_ db: some Queryable, occasionID: Int64) throws -> [Thanks] {
        try db.query("""
            SELECT \(columns) FROM occasion_thanks t LEFT JOIN media_files f ON f.sha256 = t.sha256
            WHERE t.occasion_id = \(occasionID) ORDER BY t.at, t.id
            """).map(thanks)
    }

    /// Records a thank-you, with its file if any. False when the gift was
    /// already thanked (a second tab, a double tap): nothing changes.
    static func add(
        _ tx: Transaction, occasionID: Int64, giftID: Int64, authorID: Int64, body: String, file: MediaStore.Stored?,
        durationMs: Int?, media: MediaStore, now: Int64
    ) throws -> Bool {
        if let file { try media.record(tx, file, now: now) }
        let added = try tx.execute("""
            INSERT INTO occasion_thanks (occasion_id, gift_id, author_id, body, sha256, media_kind, duration_ms, at)
            VALUES (\(occasionID), \(giftID), \(authorID), \(body), \(file?.sha256), \(file?.kind.rawValue),
                    \(file?.kind == .audio ? durationMs : nil), \(now))
            ON CONFLICT (gift_id) DO NOTHING
            """) == 1
        if !added { try media.collectGarbage(tx) }
        return added
    }

    /// An account's thank-yous, for its deletion; their files go with their last use.
    static func purge(_ tx: Transaction, userID: Int64, media: MediaStore) throws {
        try tx.execute("DELETE FROM occasion_thanks WHERE author_id = \(userID)")
        try tx.execute("DELETE FROM occasion_reactions WHERE user_id = \(userID)")
        try media.collectGarbage(tx)
    }

    // MARK: Reactions

    /// How many members chose each emoji on a gift, and which the viewer chose.
    static func reactions(_ db: some Queryable, giftID: Int64, viewerID: Int64) throws -> [String: (count: Int, mine: Bool)] {
        var found: [String: (count: Int, mine: Bool)] = [:]
        for row in try db.query("""
            SELECT emoji, count(*) AS n, max(CASE WHEN user_id = \(viewerID) THEN 1 ELSE 0 END) AS mine FROM occasion_reactions
            WHERE gift_id = \(giftID) GROUP BY emoji
            """)
        {
            found[try row.get("emoji")] = (try row.get("n"), (try row.get("mine") as Int) == 1)
        }
        return found
    }

    /// Adds the viewer's emoji, or takes it back if it was there; returns
    /// whether it is there now.
    static func toggle(_ tx: Transaction, occasionID: Int64, giftID: Int64, userID: Int64, emoji: String, now: Int64) throws -> Bool {
        if try tx.execute("""
            DELETE FROM occasion_reactions WHERE gift_id = \(giftID) AND user_id = \(userID) AND emoji = \(emoji)
            """) == 1
        {
            return false
        }
        try tx.execute("""
            INSERT INTO occasion_reactions (occasion_id, gift_id, user_id, emoji, at)
            VALUES (\(occasionID), \(giftID), \(userID), \(emoji), \(now))
            """)
        return true
    }
}
