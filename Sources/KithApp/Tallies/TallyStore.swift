import KithStorage

/// The SQL of tallies. Every read that returns a tally names the viewer and
/// carries the access rule in its WHERE clause (owner, or shared with them),
/// so a tally someone may not see is simply not found.
enum TallyStore {
    static let maximumCount: Int64 = 999_999_999
    static let maximumNameLength = 60

    enum Sort: String, Sendable, DatabaseValueConvertible, CaseIterable {
        case updated, created, manual
    }

    /// The columns `tally(row:)` reads; `v` is the viewer's id.
    private static func select(viewerID: Int64) -> SQL {
        """
        SELECT t.id, t.name, t.count, t.fireworks, t.step, t.reset_schedule, t.next_reset_at, t.version, t.created_at, t.updated_at,
            t.updated_by_former,
            o.id AS owner_id, o.display_name AS owner_name, o.username AS owner_username, o.avatar AS owner_avatar,
            o.avatar_colour AS owner_colour,
            u.id AS updater_id, u.display_name AS updater_name, u.username AS updater_username, u.avatar AS updater_avatar,
            u.avatar_colour AS updater_colour,
            CASE WHEN t.owner_id = \(viewerID) THEN 'owner' ELSE s.permission END AS role,
            seen.seen_version
        FROM tallies t
        JOIN users o ON o.id = t.owner_id
        LEFT JOIN users u ON u.id = t.updated_by
        LEFT JOIN tally_shares s ON s.tally_id = t.id AND s.user_id = \(viewerID)
        LEFT JOIN tally_views seen ON seen.tally_id = t.id AND seen.user_id = \(viewerID)
        WHERE (t.owner_id = \(viewerID) OR s.user_id IS NOT NULL)
        """
    }

    private static func tally(row: Row, viewerID: Int64) throws -> Tally {
        let updaterID: Int64? = try row.get("updater_id")
        return Tally(
            id: try row.get("id"), name: try row.get("name"), count: try row.get("count"), fireworks: try row.get("fireworks"),
            step: try row.get("step"), schedule: try row.get("reset_schedule"), nextResetAt: try row.get("next_reset_at"), version: try row.get("version"),
            createdAt: try row.get("created_at"), updatedAt: try row.get("updated_at"),
            owner: Tally.Person(
                id: try row.get("owner_id"), displayName: try row.get("owner_name"), username: try row.get("owner_username"),
                avatar: try row.get("owner_avatar"), avatarColour: try row.get("owner_colour")),
            updatedBy: try updaterID.map { id in
                Tally.Person(
                    id: id, displayName: try row.get("updater_name"), username: try row.get("updater_username"),
                    avatar: try row.get("updater_avatar"), avatarColour: try row.get("updater_colour"))
            },
            updatedByFormerMember: try row.get("updated_by_former", as: Int64.self) != 0,
            role: try row.get("role"), seenVersion: try row.get("seen_version"), viewerID: viewerID)
    }

    /// One tally as `viewerID` sees it, or nil when they may not see it.
    static func tally(_ db: some Queryable, id: Int64, viewerID: Int64) throws -> Tally? {
        try db.queryOne("\(select(viewerID: viewerID)) AND t.id = \(id)").map { try tally(row: $0, viewerID: viewerID) }
    }

    /// Every tally `viewerID` sees, newest change or newest tally first, or
    /// in their own order.
    static func list(_ db: some Queryable, viewerID: Int64, sort: Sort) throws -> [Tally] {
        let order: SQL =
            switch sort {
            case .updated: "ORDER BY t.updated_at DESC, t.version DESC, t.id DESC"
            case .created: "ORDER BY t.created_at DESC, t.id DESC"
            case .manual: manualOrder(viewerID: viewerID)
            }
        return try db.query("\(select(viewerID: viewerID)) \(order)").map { try tally(row: $0, viewerID: viewerID) }
    }

    /// Everyone who sees the tally: its owner and each friend it is shared with.
    static func audience(_ db: some Queryable, tallyID: Int64) throws -> [Int64] {
        try db.query("""
            SELECT owner_id AS user_id FROM tallies WHERE id = \(tallyID)
            UNION SELECT user_id FROM tally_shares WHERE tally_id = \(tallyID)
            """).map { try $0.get("user_id") }
    }

    // MARK: Writing

    struct Draft: Sendable {
        var name: String
        var count: Int64
        var fireworks: Bool
        var schedule: TallyResetSchedule
        var nextResetAt: Int64?
        /// The owner's zone, in which `nextResetAt` was computed.
        var timeZone: String
        var shares: [Int64: TallyRole]
    }

    static func create(_ tx: Transaction, ownerID: Int64, draft: Draft, now: Int64) throws -> Int64 {
        let id = try tx.insertReturningID("""
            INSERT INTO tallies (owner_id, name, count, fireworks, reset_schedule, next_reset_at, reset_time_zone, created_at, updated_at, updated_by)
            VALUES (\(ownerID), \(draft.name), \(draft.count), \(draft.fireworks), \(draft.schedule), \(draft.nextResetAt),
                \(draft.nextResetAt == nil ? nil : draft.timeZone), \(now), \(now), \(ownerID))
            """)
        try setShares(tx, tallyID: id, shares: draft.shares)
        try markSeen(tx, tallyID: id, userID: ownerID)
        return id
    }

    /// Adds the tally's step, in SQL so that increments from many people at
    /// once all count and the amount is the server's, never the browser's;
    /// refuses (0 rows) past the maximum.
    @discardableResult
    static func increment(_ tx: Transaction, id: Int64, by userID: Int64, now: Int64) throws -> Bool {
        let before = try currentCount(tx, id: id)
        guard try changed(tx, id: id, by: userID, now: now, "count = count + step", extra: "AND count <= \(maximumCount) - step") else { return false }
        try recordHistory(tx, id: id, kind: .increment, before: before, by: userID, now: now)
        return true
    }

    /// A count typed in, or a reset by a person (`kind: .reset`).
    static func setCount(_ tx: Transaction, id: Int64, to count: Int64, by userID: Int64?, now: Int64, kind: HistoryKind = .set) throws {
        let before = try currentCount(tx, id: id)
        guard try changed(tx, id: id, by: userID, now: now, "count = \(count)") else { return }
        try recordHistory(tx, id: id, kind: kind, before: before, by: userID, now: now)
    }

    /// A reset taken back: the count, when and by whom it last changed, as
    /// kept before the reset (the person only if they still have an account).
    static func restoreCount(
        _ tx: Transaction, id: Int64, count: DatabaseValue, updatedAt: DatabaseValue, updatedBy: DatabaseValue
    ) throws {
        try tx.execute("""
            UPDATE tallies SET count = \(count), updated_at = \(updatedAt),
                updated_by = (SELECT id FROM users WHERE id = \(updatedBy)), version = version + 1
            WHERE id = \(id)
            """)
    }

    /// What a change to the count was, as `tally_history.kind` stores it.
    enum HistoryKind: String, Sendable, DatabaseValueConvertible {
        case increment, decrement, set, reset, undo
    }


    /// One history row for the change just made, read back from the tally
    /// in the same transaction, so concurrent taps each get their own row
    /// with the value they produced.
    static func recordHistory(_ tx: Transaction, id: Int64, kind: HistoryKind, before: Int64?, by userID: Int64?, now: Int64) throws {
        try tx.execute("""
            INSERT INTO tally_history (tally_id, at, user_id, kind, delta, value_after, version)
            SELECT id, \(now), \(userID), \(kind), count - \(before ?? 0), count, version FROM tallies WHERE id = \(id)
            """)
    }

    static func rename(_ tx: Transaction, id: Int64, to name: String, by userID: Int64, now: Int64) throws {
        try changed(tx, id: id, by: userID, now: now, "name = \(name)")
    }

    static func setSchedule(
        _ tx: Transaction, id: Int64, schedule: TallyResetSchedule, nextResetAt: Int64?, timeZone: String, by userID: Int64, now: Int64
    ) throws {
        try changed(
            tx, id: id, by: userID, now: now,
            "reset_schedule = \(schedule), next_reset_at = \(nextResetAt), reset_time_zone = \(nextResetAt == nil ? nil : timeZone)")
    }

    static func setFireworks(_ tx: Transaction, id: Int64, on: Bool, by userID: Int64, now: Int64) throws {
        try changed(tx, id: id, by: userID, now: now, "fireworks = \(on)")
    }

    /// Applies `assignment` and records who changed the tally and when; the
    /// person who made the change has seen it.
    @discardableResult
    static func changed(
        _ tx: Transaction, id: Int64, by userID: Int64?, now: Int64, _ assignment: SQL, extra: SQL = ""
    ) throws -> Bool {
        let rows = try tx.execute("""
            UPDATE tallies SET \(assignment), version = version + 1, updated_at = \(now), updated_by = \(userID), updated_by_former = 0
            WHERE id = \(id) \(extra)
            """)
        if rows > 0, let userID { try markSeen(tx, tallyID: id, userID: userID) }
        return rows > 0
    }

    /// Replaces who the tally is shared with. The caller has checked that
    /// each person is the owner's friend.
    static func setShares(_ tx: Transaction, tallyID: Int64, shares: [Int64: TallyRole]) throws {
        try tx.execute("DELETE FROM tally_shares WHERE tally_id = \(tallyID)")
        for (userID, role) in shares.sorted(by: { $0.key < $1.key }) where role != .owner {
            try tx.execute("INSERT INTO tally_shares (tally_id, user_id, permission) VALUES (\(tallyID), \(userID), \(role))")
        }
    }

    /// The friends the tally is shared with, by name, with their permission.
    static func sharedWith(_ db: some Queryable, tallyID: Int64) throws -> [(person: Tally.Person, role: TallyRole)] {
        try db.query("""
            SELECT u.id, u.display_name, u.username, u.avatar, u.avatar_colour, s.permission
            FROM tally_shares s JOIN users u ON u.id = s.user_id
            WHERE s.tally_id = \(tallyID) ORDER BY lower(u.display_name), u.id
            """).map { (try Tally.Person(row: $0), try $0.get("permission")) }
    }

    /// How many friends see the tally, for a view that names none of them:
    /// a count stays one cheap read however widely it is shared.
    static func shareCount(_ db: some Queryable, tallyID: Int64) throws -> Int {
        try db.queryOne("SELECT COUNT(*) AS n FROM tally_shares WHERE tally_id = \(tallyID)").map { try $0.get("n") } ?? 0
    }

    static func delete(_ tx: Transaction, id: Int64) throws {
        try tx.execute("DELETE FROM tallies WHERE id = \(id)")
    }

    static func leave(_ tx: Transaction, id: Int64, userID: Int64) throws {
        try tx.execute("DELETE FROM tally_shares WHERE tally_id = \(id) AND user_id = \(userID)")
        try tx.execute("DELETE FROM tally_views WHERE tally_id = \(id) AND user_id = \(userID)")
    }

    /// Records that `userID` has seen the tally as it is now, or as it was
    /// at `version` when that is older; never backwards. Whether they may
    /// see it is the caller's question for `Tally.load`.
    static func markSeen(_ tx: Transaction, tallyID: Int64, userID: Int64, upTo version: Int64 = .max) throws {
        try tx.execute("""
            INSERT INTO tally_views (tally_id, user_id, seen_version)
            SELECT id, \(userID), CASE WHEN version < \(version) THEN version ELSE \(version) END FROM tallies WHERE id = \(tallyID)
            ON CONFLICT (tally_id, user_id) DO UPDATE SET seen_version = CASE
                WHEN excluded.seen_version > tally_views.seen_version THEN excluded.seen_version ELSE tally_views.seen_version END
            """)
    }

    // MARK: Scheduled resets

    struct DueReset: Sendable {
        var id: Int64
        var schedule: TallyResetSchedule
        /// The owner's zone now.
        var timeZone: String

        init(row: Row) throws {
            id = try row.get("id")
            schedule = try row.get("reset_schedule")
            timeZone = try row.get("time_zone")
        }
    }

    /// Tallies whose next reset instant has passed, with their owner's zone.
    static func dueResets(_ db: some Queryable, now: Int64, limit: Int) throws -> [DueReset] {
        try db.query("""
            SELECT t.id, t.reset_schedule, u.time_zone FROM tallies t JOIN users u ON u.id = t.owner_id
            WHERE t.next_reset_at IS NOT NULL AND t.next_reset_at <= \(now)
            ORDER BY t.next_reset_at, t.id LIMIT \(limit)
            """).map(DueReset.init(row:))
    }

    /// Scheduled tallies whose owner has moved to another time zone since
    /// their next reset was computed.
    static func rezoned(_ db: some Queryable, limit: Int) throws -> [DueReset] {
        try db.query("""
            SELECT t.id, t.reset_schedule, u.time_zone FROM tallies t JOIN users u ON u.id = t.owner_id
            WHERE t.next_reset_at IS NOT NULL AND t.reset_time_zone <> u.time_zone
            ORDER BY t.id LIMIT \(limit)
            """).map(DueReset.init(row:))
    }

    /// One scheduled reset: count to 0, changed by Kith, and the next instant.
    static func applyReset(_ tx: Transaction, id: Int64, nextResetAt: Int64?, timeZone: String, now: Int64) throws {
        let before = try currentCount(tx, id: id)
        try tx.execute("""
            UPDATE tallies SET count = 0, version = version + 1, updated_at = \(now), updated_by = NULL, updated_by_former = 0,
                next_reset_at = \(nextResetAt), reset_time_zone = \(nextResetAt == nil ? nil : timeZone),
                reset_schedule = CASE WHEN CAST(\(nextResetAt) AS BIGINT) IS NULL THEN 'off' ELSE reset_schedule END
            WHERE id = \(id)
            """)
        try recordHistory(tx, id: id, kind: .reset, before: before, by: nil, now: now)
    }

    /// The next reset computed again in the owner's new zone; the count stays.
    static func rezone(_ tx: Transaction, id: Int64, nextResetAt: Int64?, timeZone: String) throws {
        try tx.execute("""
            UPDATE tallies SET next_reset_at = \(nextResetAt), reset_time_zone = \(nextResetAt == nil ? nil : timeZone),
                reset_schedule = CASE WHEN CAST(\(nextResetAt) AS BIGINT) IS NULL THEN 'off' ELSE reset_schedule END
            WHERE id = \(id)
            """)
    }

    // MARK: The list's sort

    static func sort(_ db: some Queryable, userID: Int64) throws -> Sort {
        try db.queryValue("SELECT sort FROM tally_list_preferences WHERE user_id = \(userID)", as: Sort.self) ?? .updated
    }

    static func setSort(_ tx: Transaction, userID: Int64, sort: Sort) throws {
        try tx.execute("""
            INSERT INTO tally_list_preferences (user_id, sort) VALUES (\(userID), \(sort))
            ON CONFLICT (user_id) DO UPDATE SET sort = excluded.sort
            """)
    }

    // MARK: Friends parting

    /// Stops every share between two people, both ways: neither sees the
    /// other's tallies any more (they stopped being friends). Returns the
    /// tallies that stopped being shared.
    static func unshare(_ tx: Transaction, between userID: Int64, and otherID: Int64) throws -> [Int64] {
        let between: SQL = """
            (user_id = \(otherID) AND tally_id IN (SELECT id FROM tallies WHERE owner_id = \(userID)))
            OR (user_id = \(userID) AND tally_id IN (SELECT id FROM tallies WHERE owner_id = \(otherID)))
            """
        let unshared = try tx.query("SELECT tally_id FROM tally_shares WHERE \(between)").map { try $0.get("tally_id", as: Int64.self) }
        try tx.execute("DELETE FROM tally_shares WHERE \(between)")
        try tx.execute("DELETE FROM tally_views WHERE \(between)")
        return unshared
    }

    // MARK: Account deletion

    /// The tallies `userID` owns go (for everyone they were shared with);
    /// everything else of theirs goes with their user row. Returns who
    /// lost a tally from their list.
    /// Removes what the user had in Tallies. Returns, for each of their own
    /// tallies (deleted with them), who else could see it.
    static func purge(_ tx: Transaction, userID: Int64) throws -> [Int64: [Int64]] {
        var deleted: [Int64: [Int64]] = [:]
        for row in try tx.query("""
            SELECT t.id, s.user_id FROM tallies t LEFT JOIN tally_shares s ON s.tally_id = t.id WHERE t.owner_id = \(userID)
            """) {
            let id = try row.get("id", as: Int64.self)
            let friend = try row.get("user_id", as: Int64?.self)
            deleted[id, default: []] += friend.map { [$0] } ?? []
        }
        try tx.execute("DELETE FROM tallies WHERE owner_id = \(userID)")
        try tx.execute("UPDATE tallies SET updated_by = NULL, updated_by_former = 1 WHERE updated_by = \(userID)")
        try tx.execute("UPDATE tally_history SET user_id = NULL, by_former = 1 WHERE user_id = \(userID)")
        try tx.execute("DELETE FROM tally_shares WHERE user_id = \(userID)")
        try tx.execute("DELETE FROM tally_views WHERE user_id = \(userID)")
        try tx.execute("DELETE FROM tally_list_preferences WHERE user_id = \(userID)")
        return deleted
    }

    /// The tally's name as it is now (a rename may be part of the change).
    static func name(_ db: some Queryable, tallyID: Int64) throws -> String? {
        try db.queryValue("SELECT name FROM tallies WHERE id = \(tallyID)", as: String.self)
    }

    /// Resets fall at the owner's local midnight.
    static func ownerTimeZone(_ db: some Queryable, tally: Tally) throws -> String {
        try db.queryValue("SELECT time_zone FROM users WHERE id = \(tally.owner.id)", as: String.self) ?? "UTC"
    }
}
