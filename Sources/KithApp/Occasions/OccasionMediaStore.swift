import KithMedia
import KithStorage

/// Every SQL statement about an occasion's media: which stored file a gift
/// or a proof uses, in what order. The files themselves are `MediaStore`'s.
enum OccasionMediaStore {

    struct Item: Sendable {
        var id: Int64
        var giftID: Int64?
        var challengeID: Int64?
        var sha256: String
        var mimeType: String
        var kind: MediaKind
        var durationMs: Int?
        var position: Int
        /// A photo's size and variants, once known.
        var photo: PhotoVariants.Photo?
    }

    static let columns: SQL = """
        m.id, m.gift_id, m.challenge_id, m.sha256, f.mime_type, f.kind, m.duration_ms, m.position,
        \(PhotoVariants.columns("m.sha256"))
        """

    static func item(_ row: Row) throws -> Item {
        Item(
            id: try row.get("id"), giftID: try row.get("gift_id"), challengeID: try row.get("challenge_id"), sha256: try row.get("sha256"),
            mimeType: try row.get("mime_type"), kind: MediaKind(rawValue: try row.get("kind")) ?? .photo,
            durationMs: try row.get("duration_ms"), position: try row.get("position"), photo: try PhotoVariants.photo(row))
    }

    static func items(_ db: some Queryable, giftID: Int64) throws -> [Item] {
        try db.query("""
            SELECT \(columns) FROM occasion_media m JOIN media_files f ON f.sha256 = m.sha256
            WHERE m.gift_id = \(giftID) ORDER BY m.position, m.id
            """).map(item)
    }

    static func items(_ db: some Queryable, occasionID: Int64) throws -> [Item] {
        try db.query("""
            SELECT \(columns) FROM occasion_media m JOIN media_files f ON f.sha256 = m.sha256
            WHERE m.occasion_id = \(occasionID) ORDER BY m.gift_id, m.position, m.id
            """).map(item)
    }

    static func proof(_ db: some Queryable, challengeID: Int64) throws -> Item? {
        try db.queryOne("""
            SELECT \(columns) FROM occasion_media m JOIN media_files f ON f.sha256 = m.sha256
            WHERE m.challenge_id = \(challengeID) ORDER BY m.id LIMIT 1
            """).map(item)
    }

    static func item(_ db: some Queryable, occasionID: Int64, id: Int64) throws -> Item? {
        try db.queryOne("""
            SELECT \(columns) FROM occasion_media m JOIN media_files f ON f.sha256 = m.sha256
            WHERE m.id = \(id) AND m.occasion_id = \(occasionID)
            """).map(item)
    }

    /// Whether the author's gift here has any photo, video or voice note.
    static func hasGiftMedia(_ db: some Queryable, occasionID: Int64, authorID: Int64) throws -> Bool {
        try db.queryOne("""
            SELECT 1 FROM occasion_media m JOIN occasion_gifts g ON g.id = m.gift_id
            WHERE g.occasion_id = \(occasionID) AND g.author_id = \(authorID) LIMIT 1
            """) != nil
    }

    enum AttachOutcome: Equatable {
        case attached
        /// The gift has left draft; nothing changed.
        case notDraft
        /// Photos beyond ten; nothing changed. The total it would have made.
        case tooMany(Int)
    }

    static let maxPhotos = 10

    /// Attaches stored files to the author's draft gift, making the draft if
    /// there is none. Another kind of media replaces what was there; photos
    /// add up to ten. Unused files are collected in the same transaction.
    static func attachToDraft(
        _ tx: Transaction, occasionID: Int64, authorID: Int64, files: [MediaStore.Stored], as giftKind: GiftKind, durationMs: Int?,
        media: MediaStore, now: Int64
    ) throws -> AttachOutcome {
        let existing = try OccasionStore.gift(tx, occasionID: occasionID, authorID: authorID)
        if let existing, existing.state != .draft { return .notDraft }
        let adding = giftKind == .photos && existing?.kind == .photos
        let kept = try adding ? (existing.map { try count(tx, giftID: $0.id) } ?? 0) : 0
        guard kept + files.count <= maxPhotos else { return .tooMany(kept + files.count) }
        let giftID: Int64
        if let existing {
            giftID = existing.id
        } else {
            // No gift yet (`existing` is nil), so a plain INSERT: the draft's
            // upsert would not say which id it wrote.
            giftID = try tx.insertReturningID("""
                INSERT INTO occasion_gifts (occasion_id, author_id, created_at) VALUES (\(occasionID), \(authorID), \(now))
                """)
        }
        if !adding { try tx.execute("DELETE FROM occasion_media WHERE gift_id = \(giftID)") }
        try tx.execute("UPDATE occasion_gifts SET kind = \(giftKind.rawValue) WHERE id = \(giftID)")
        for (index, file) in files.enumerated() {
            try media.record(tx, file, now: now)
            try tx.execute("""
                INSERT INTO occasion_media (occasion_id, gift_id, uploader_id, sha256, position, duration_ms, created_at)
                VALUES (\(occasionID), \(giftID), \(authorID), \(file.sha256), \(kept + index), \(durationMs), \(now))
                """)
        }
        try media.collectGarbage(tx)
        return .attached
    }

    /// Removes one file from the author's draft; a gift left with none is a letter again.
    static func removeFromDraft(_ tx: Transaction, occasionID: Int64, authorID: Int64, mediaID: Int64, media: MediaStore) throws -> Bool {
        guard let gift = try OccasionStore.gift(tx, occasionID: occasionID, authorID: authorID), gift.state == .draft,
            try tx.execute("DELETE FROM occasion_media WHERE id = \(mediaID) AND gift_id = \(gift.id)") == 1
        else { return false }
        if try count(tx, giftID: gift.id) == 0 {
            try tx.execute("UPDATE occasion_gifts SET kind = 'letter' WHERE id = \(gift.id)")
        }
        try media.collectGarbage(tx)
        return true
    }

    static func count(_ db: some Queryable, giftID: Int64) throws -> Int {
        try db.queryValue("SELECT count(*) FROM occasion_media WHERE gift_id = \(giftID)", as: Int.self) ?? 0
    }

    /// Records a challenge's photo proof.
    static func attachProof(
        _ tx: Transaction, occasionID: Int64, challengeID: Int64, uploaderID: Int64, file: MediaStore.Stored, media: MediaStore, now: Int64
    ) throws {
        try media.record(tx, file, now: now)
        try tx.execute("""
            INSERT INTO occasion_media (occasion_id, challenge_id, uploader_id, sha256, created_at)
            VALUES (\(occasionID), \(challengeID), \(uploaderID), \(file.sha256), \(now))
            """)
    }

    /// An account's uploads, for its deletion; the files go with their last use.
    static func deleteUploads(_ tx: Transaction, uploaderID: Int64, media: MediaStore) throws {
        try tx.execute("DELETE FROM occasion_media WHERE uploader_id = \(uploaderID)")
        try media.collectGarbage(tx)
    }
}
