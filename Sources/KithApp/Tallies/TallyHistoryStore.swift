import Foundation
import KithStorage

/// The SQL of a tally's history: reading it back for the page and the CSV,
/// taking back one's own last change, the −1, the owner's step, and the
/// totals per period. Callers have loaded the tally (`Tally.load`), so
/// access is already decided.
extension TallyStore {
    /// The steps an owner may choose for a tap; the migration checks the same.
    static let steps: [Int64] = [1, 2, 5, 10]
    /// How long a person may take back their own last change.
    static let undoWindow: Int64 = 60

    /// One recorded change, with the name of whoever made it.
    struct HistoryEntry: Sendable, Equatable {
        var id: Int64
        var at: Int64
        var userID: Int64?
        var userName: String?
        var byFormer: Bool
        var kind: HistoryKind
        var delta: Int64
        var valueAfter: Int64
        var valueBefore: Int64 { valueAfter - delta }

        init(row: Row) throws {
            id = try row.get("id")
            at = try row.get("at")
            userID = try row.get("user_id")
            userName = try row.get("display_name")
            byFormer = try row.get("by_former", as: Int64.self) != 0
            kind = try row.get("kind")
            delta = try row.get("delta")
            valueAfter = try row.get("value_after")
        }
    }

    /// Newest first; `before` pages back past an entry id.
    static func history(_ db: some Queryable, tallyID: Int64, before: Int64? = nil, limit: Int) throws -> [HistoryEntry] {
        try db.query("""
            SELECT h.id, h.at, h.user_id, u.display_name, h.by_former, h.kind, h.delta, h.value_after
            FROM tally_history h LEFT JOIN users u ON u.id = h.user_id
            WHERE h.tally_id = \(tallyID) AND h.id < \(before ?? .max)
            ORDER BY h.id DESC LIMIT \(limit)
            """).map(HistoryEntry.init(row:))
    }

    /// The latest change to the count, when `userID` made it within the
    /// window and the count still shows it; nil otherwise. An undo is not
    /// itself taken back (that would be a redo, and two people could
    /// bounce a count between them).
    static func undoable(_ db: some Queryable, tallyID: Int64, userID: Int64, now: Int64) throws -> HistoryEntry? {
        guard let latest = try history(db, tallyID: tallyID, limit: 1).first,
            latest.userID == userID, latest.kind != .undo, now - latest.at < undoWindow,
            try currentCount(db, id: tallyID) == latest.valueAfter
        else { return nil }
        return latest
    }

    /// Why `undoable` said no, in words for the person who asked.
    static func undoRefusal(_ db: some Queryable, tallyID: Int64, userID: Int64, now: Int64) throws -> String {
        guard let latest = try history(db, tallyID: tallyID, limit: 1).first else { return "There is no change to undo." }
        if latest.userID != userID { return "Someone else changed this tally since, so your change stays." }
        if latest.kind == .undo { return "Your last change was an undo; there is nothing more to take back." }
        if now - latest.at >= undoWindow { return "Your change is more than a minute old, so it stays. Set the count instead." }
        return "The count has changed since, so your change stays."
    }

    /// Puts the count back to what it was before `entry`, as a history row of its own.
    static func undo(_ tx: Transaction, tallyID: Int64, entry: HistoryEntry, by userID: Int64, now: Int64) throws {
        try setCount(tx, id: tallyID, to: entry.valueBefore, by: userID, now: now, kind: .undo)
    }

    /// Takes one off, never below 0 (0 rows at 0).
    static func decrement(_ tx: Transaction, id: Int64, by userID: Int64, now: Int64) throws -> Bool {
        let before = try currentCount(tx, id: id)
        guard try changed(tx, id: id, by: userID, now: now, "count = count - 1", extra: "AND count > 0") else { return false }
        try recordHistory(tx, id: id, kind: .decrement, before: before, by: userID, now: now)
        return true
    }

    static func step(_ db: some Queryable, tallyID: Int64) throws -> Int64 {
        try db.queryValue("SELECT step FROM tallies WHERE id = \(tallyID)", as: Int64.self) ?? 1
    }

    static func setStep(_ tx: Transaction, id: Int64, step: Int64, by userID: Int64, now: Int64) throws {
        try changed(tx, id: id, by: userID, now: now, "step = \(step)")
    }

    static func currentCount(_ db: some Queryable, id: Int64) throws -> Int64? {
        try db.queryValue("SELECT count FROM tallies WHERE id = \(id)", as: Int64.self)
    }

    // MARK: Totals per period

    /// The history rows (as `h`) that are counting: every +n and −1, and an
    /// undo of a tap (which takes that tap back). Typed counts and resets,
    /// and undos of them, correct or clear the number rather than record
    /// something done. Totals and goals count the same rows.
    static let countingRows: SQL = """
        (h.kind IN ('increment', 'decrement') OR (h.kind = 'undo' AND (
            SELECT p.kind FROM tally_history p WHERE p.tally_id = h.tally_id AND p.id < h.id ORDER BY p.id DESC LIMIT 1
        ) IN ('increment', 'decrement')))
        """

    /// What the taps added in each period `[start, end)` (`countingRows`).
    /// One query: the periods are a VALUES list, summed over the history in SQL.
    static func totals(_ db: some Queryable, tallyID: Int64, periods: [(start: Int64, end: Int64)]) throws -> [Int64] {
        guard !periods.isEmpty else { return [] }
        let values = SQL.join(periods.enumerated().map { "(CAST(\($0.offset) AS BIGINT), CAST(\($0.element.start) AS BIGINT), CAST(\($0.element.end) AS BIGINT))" as SQL }, separator: ", ")
        let rows = try db.query("""
            WITH periods(i, start, finish) AS (VALUES \(values)),
            counted AS (
                SELECT h.at, h.delta FROM tally_history h
                WHERE h.tally_id = \(tallyID) AND \(countingRows)
            )
            SELECT periods.i, CAST(coalesce(sum(counted.delta), 0) AS BIGINT) AS total
            FROM periods LEFT JOIN counted ON counted.at >= periods.start AND counted.at < periods.finish
            GROUP BY periods.i ORDER BY periods.i
            """)
        return try rows.map { try $0.get("total", as: Int64.self) }
    }

    /// The count a reset cleared, and when: "yesterday: 7".
    static func lastReset(_ db: some Queryable, tallyID: Int64) throws -> (at: Int64, cleared: Int64)? {
        try db.queryOne("""
            SELECT at, value_after - delta AS cleared FROM tally_history
            WHERE tally_id = \(tallyID) AND kind = 'reset' ORDER BY id DESC LIMIT 1
            """).map { (try $0.get("at"), try $0.get("cleared")) }
    }
}
