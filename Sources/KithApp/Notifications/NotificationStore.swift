import KithStorage

/// The SQL of notifications: fanning events into pending digests, turning
/// due digests into inbox rows, the inbox itself, mutes, and the purge.
enum NotificationStore {
    /// One entry of a person's inbox.
    struct Entry: Sendable, Equatable {
        let id: Int64
        let userID: Int64
        let kind: String
        let scope: String
        let title: String
        /// Its sentence, with the names of people since deleted as "a former member" (`FormerMember`).
        var body: String
        let url: String
        let eventCount: Int64
        let createdAt: Int64
        let readAt: Int64?

        var isRead: Bool { readAt != nil }

        static let columns: SQL = "id, user_id, kind, scope, title, body, url, event_count, created_at, read_at"

        init(row: Row) throws {
            id = try row.get("id")
            userID = try row.get("user_id")
            kind = try row.get("kind")
            scope = try row.get("scope")
            title = try row.get("title")
            body = try row.get("body")
            url = try row.get("url")
            eventCount = try row.get("event_count")
            createdAt = try row.get("created_at")
            readAt = try row.get("read_at")
        }
    }

    /// A digest the sweeper found due, with its events oldest first.
    struct DueDigest: Sendable {
        let id: Int64
        let userID: Int64
        let digest: Notifications.Digest
    }

    // MARK: Fan-out

    /// Notes that `scope` saw an event at `now`, whoever it reached.
    static func touchScope(_ tx: Transaction, scope: String, now: Int64) throws {
        try tx.execute("""
            INSERT INTO notification_scopes (scope, last_event_at) VALUES (\(scope), \(now))
            ON CONFLICT (scope) DO UPDATE SET last_event_at = CASE
                WHEN excluded.last_event_at > notification_scopes.last_event_at THEN excluded.last_event_at
                ELSE notification_scopes.last_event_at END
            """)
    }

    /// Adds the event to the recipient's pending digest for its scope and
    /// kind, opening one if there is none. Nothing happens when the
    /// recipient muted the scope; returns whether anything was written.
    @discardableResult
    static func append(_ tx: Transaction, event: Notifications.Event, recipient: Int64, now: Int64) throws -> Bool {
        // `WHERE NOT EXISTS` decides the mute in the same statement, and the
        // upsert's RETURNING gives the digest's id whether it was opened or
        // extended.
        let digestID = try tx.queryValue("""
            INSERT INTO notification_digests (user_id, kind, scope, scope_title, first_event_at, last_event_at)
            SELECT \(recipient), \(event.kind), \(event.scope), \(event.scopeTitle), \(now), \(now)
            WHERE NOT EXISTS (SELECT 1 FROM notification_mutes WHERE user_id = \(recipient) AND scope = \(event.scope))
            ON CONFLICT (user_id, scope, kind) DO UPDATE SET
                last_event_at = CASE WHEN excluded.last_event_at > notification_digests.last_event_at
                    THEN excluded.last_event_at ELSE notification_digests.last_event_at END,
                scope_title = excluded.scope_title
            RETURNING id
            """, as: Int64.self)
        guard let digestID else { return false }
        try tx.execute("""
            INSERT INTO notification_digest_events (digest_id, actor_user_id, actor_name, subject, url, at)
            VALUES (\(digestID), \(event.actorID), \(event.actorName), \(event.subject), \(event.link), \(now))
            """)
        return true
    }

    // MARK: Sweeping

    /// Digests whose scope has been quiet since `quietBefore` (its last
    /// event at or before it), or whose first event is at or before
    /// `capBefore`, oldest first, at most `limit`.
    static func dueDigests(_ db: some Queryable, quietBefore: Int64, capBefore: Int64, limit: Int) throws -> [DueDigest] {
        let heads = try db.query("""
            SELECT d.id, d.user_id, d.kind, d.scope, d.scope_title, d.first_event_at, d.last_event_at
            FROM notification_digests d LEFT JOIN notification_scopes s ON s.scope = d.scope
            WHERE (d.last_event_at <= \(quietBefore) AND coalesce(s.last_event_at, d.last_event_at) <= \(quietBefore))
               OR d.first_event_at <= \(capBefore)
            ORDER BY d.first_event_at, d.id
            LIMIT \(limit)
            """)
        return try digests(db, heads)
    }

    /// What waits for `userIDs` of `kind` in `scope`, due or not.
    static func pendingDigests(_ db: some Queryable, kind: String, scope: String, userIDs: [Int64]) throws -> [DueDigest] {
        guard !userIDs.isEmpty else { return [] }
        let heads = try db.query("""
            SELECT d.id, d.user_id, d.kind, d.scope, d.scope_title, d.first_event_at, d.last_event_at
            FROM notification_digests d
            WHERE d.kind = \(kind) AND d.scope = \(scope) AND d.user_id IN (\(list: userIDs))
            ORDER BY d.first_event_at, d.id
            """)
        return try digests(db, heads)
    }

    static func digests(_ db: some Queryable, _ heads: [Row]) throws -> [DueDigest] {
        try heads.map { head in
            let id: Int64 = try head.get("id")
            let events = try db.query("""
                SELECT actor_user_id, actor_name, subject, url, at FROM notification_digest_events
                WHERE digest_id = \(id) ORDER BY id
                """
            ).map { row in
                Notifications.DigestEvent(
                    actorID: try row.get("actor_user_id"), actorName: try row.get("actor_name"), subject: try row.get("subject"),
                    link: try row.get("url"), at: try row.get("at"))
            }
            let digest = Notifications.Digest(
                kind: try head.get("kind"), scope: try head.get("scope"), scopeTitle: try head.get("scope_title"),
                firstEventAt: try head.get("first_event_at"), lastEventAt: try head.get("last_event_at"), events: events)
            return DueDigest(id: id, userID: try head.get("user_id"), digest: digest)
        }
    }

    /// Puts one delivered digest in the inbox and removes it (its events go
    /// with it); returns the new notification's id.
    static func deliver(
        _ tx: Transaction, digestID: Int64, userID: Int64, kind: String, scope: String, title: String, body: String, url: String,
        eventCount: Int, now: Int64
    ) throws -> Int64 {
        let id = try tx.insertReturningID("""
            INSERT INTO notifications (user_id, kind, scope, title, body, url, event_count, created_at)
            VALUES (\(userID), \(kind), \(scope), \(title), \(body), \(url), \(eventCount), \(now))
            """)
        try tx.execute("DELETE FROM notification_digests WHERE id = \(digestID)")
        return id
    }

    /// Takes back an actor's event about `subject` from every digest still
    /// waiting in the scope; a digest left with none goes.
    static func withdraw(_ tx: Transaction, kind: String, scope: String, actorID: Int64, subject: String) throws {
        try tx.execute("""
            DELETE FROM notification_digest_events
            WHERE actor_user_id = \(actorID) AND subject = \(subject)
            AND digest_id IN (SELECT id FROM notification_digests WHERE scope = \(scope) AND kind = \(kind))
            """)
        try deleteEmptyDigests(tx)
    }

    /// A digest with no events left (its only actor deleted their account)
    /// has nothing to say.
    static func deleteEmptyDigests(_ tx: Transaction) throws {
        try tx.execute("""
            DELETE FROM notification_digests
            WHERE NOT EXISTS (SELECT 1 FROM notification_digest_events e WHERE e.digest_id = notification_digests.id)
            """)
    }

    /// Scope activity matters only while a digest waits on it.
    static func forgetIdleScopes(_ tx: Transaction) throws {
        try tx.execute("""
            DELETE FROM notification_scopes
            WHERE NOT EXISTS (SELECT 1 FROM notification_digests d WHERE d.scope = notification_scopes.scope)
            """)
    }

    static func pendingDigestCount(_ db: some Queryable, userID: Int64) throws -> Int {
        Int(try db.queryValue("SELECT count(*) FROM notification_digests WHERE user_id = \(userID)", as: Int64.self) ?? 0)
    }

    // MARK: The inbox

    /// What the nav badge shows on every page: one count over a partial index.
    static func unreadCount(_ db: some Queryable, userID: Int64) throws -> Int {
        Int(try db.queryValue("SELECT count(*) FROM notifications WHERE user_id = \(userID) AND read_at IS NULL", as: Int64.self) ?? 0)
    }

    /// The newest `limit` entries, newest first.
    static func inbox(_ db: some Queryable, userID: Int64, limit: Int) throws -> [Entry] {
        let entries = try db.query("""
            SELECT \(Entry.columns) FROM notifications WHERE user_id = \(userID) ORDER BY id DESC LIMIT \(limit)
            """
        ).map(Entry.init(row:))
        let named = entries.reduce(into: Set<Int64>()) { $0.formUnion(FormerMember.markedIDs(in: $1.body)) }
        guard !named.isEmpty else { return entries }
        let present = Set(try db.query("SELECT id FROM users WHERE id IN (\(list: named.sorted()))").map { try $0.get("id", as: Int64.self) })
        return entries.map { entry in
            var entry = entry
            entry.body = FormerMember.resolve(entry.body, exists: present.contains)
            return entry
        }
    }

    /// One entry, only for its owner: anyone else gets nil, as for an id
    /// that does not exist.
    static func entry(_ db: some Queryable, id: Int64, userID: Int64) throws -> Entry? {
        try db.queryOne("SELECT \(Entry.columns) FROM notifications WHERE id = \(id) AND user_id = \(userID)").map(Entry.init(row:))
    }

    static func markRead(_ tx: Transaction, id: Int64, userID: Int64, now: Int64) throws {
        try tx.execute("UPDATE notifications SET read_at = \(now) WHERE id = \(id) AND user_id = \(userID) AND read_at IS NULL")
    }

    /// Returns how many entries changed.
    @discardableResult
    static func markAllRead(_ tx: Transaction, userID: Int64, now: Int64) throws -> Int {
        try tx.execute("UPDATE notifications SET read_at = \(now) WHERE user_id = \(userID) AND read_at IS NULL")
    }

    // MARK: Mutes

    static func mutedScopes(_ db: some Queryable, userID: Int64, among scopes: some Sequence<String>) throws -> Set<String> {
        Set(try db.query("SELECT scope FROM notification_mutes WHERE user_id = \(userID) AND scope IN (\(list: scopes))").map {
            try $0.get("scope", as: String.self)
        })
    }

    /// Mutes a scope and drops what was already waiting in it for this
    /// person: they asked to hear nothing more.
    static func mute(_ tx: Transaction, userID: Int64, scope: String, now: Int64) throws {
        try tx.execute("""
            INSERT INTO notification_mutes (user_id, scope, created_at) VALUES (\(userID), \(scope), \(now))
            ON CONFLICT (user_id, scope) DO NOTHING
            """)
        try discardPending(tx, userID: userID, scope: scope)
    }

    /// Drops what waits for this person in a scope without muting it.
    static func discardPending(_ tx: Transaction, userID: Int64, scope: String) throws {
        try tx.execute("DELETE FROM notification_digests WHERE user_id = \(userID) AND scope = \(scope)")
    }

    static func unmute(_ tx: Transaction, userID: Int64, scope: String) throws {
        try tx.execute("DELETE FROM notification_mutes WHERE user_id = \(userID) AND scope = \(scope)")
    }

    // MARK: Account deletion

    /// Everything of the user's: their inbox, the digests waiting for them,
    /// their mutes, and the events they caused in other people's digests
    /// (a digest left with none goes too).
    static func purge(_ tx: Transaction, userID: Int64) throws {
        try tx.execute("DELETE FROM notifications WHERE user_id = \(userID)")
        try tx.execute("DELETE FROM notification_digests WHERE user_id = \(userID)")
        try tx.execute("DELETE FROM notification_mutes WHERE user_id = \(userID)")
        try tx.execute("DELETE FROM notification_digest_events WHERE actor_user_id = \(userID)")
        try deleteEmptyDigests(tx)
        try forgetIdleScopes(tx)
    }
}
