import Foundation
import KithHTTP
import KithStorage
import KithTemplates

/// Rows exactly as they were, every column, to be inserted again by an undo.
/// Captured with `SELECT *`, so a column a later migration adds is kept
/// without anyone remembering to list it.
struct RowSnapshot: Codable, Sendable {
    struct Table: Codable, Sendable {
        var table: String
        var columns: [String]
        var rows: [[Value]]
    }

    /// `DatabaseValue` in a form JSON can carry.
    enum Value: Codable, Sendable, Equatable {
        case null, integer(Int64), real(Double), text(String), blob([UInt8])

        init(_ value: DatabaseValue) {
            switch value {
            case .null: self = .null
            case .integer(let v): self = .integer(v)
            case .real(let v): self = .real(v)
            case .text(let v): self = .text(v)
            case .blob(let v): self = .blob(v)
            }
        }

        var databaseValue: DatabaseValue {
            switch self {
            case .null: .null
            case .integer(let v): .integer(v)
            case .real(let v): .real(v)
            case .text(let v): .text(v)
            case .blob(let v): .blob(v)
            }
        }
    }

    var tables: [Table] = []

    /// Adds the rows of `table` matching `condition`. Capture parents before
    /// children: `restore` inserts in the same order.
    mutating func capture(_ db: some Queryable, _ table: String, where condition: SQL) throws {
        let rows = try db.query("SELECT * FROM \(identifier: table) WHERE \(condition)")
        guard let first = rows.first else { return }
        tables.append(Table(table: table, columns: first.columnNames, rows: rows.map { row in row.values.map(Value.init) }))
    }

    /// The rows kept of `table`, each by column name.
    func rows(_ table: String) -> [[String: DatabaseValue]] {
        tables.filter { $0.table == table }.flatMap { kept in
            kept.rows.map { Dictionary(uniqueKeysWithValues: zip(kept.columns, $0.map(\.databaseValue))) }
        }
    }

    /// Inserts every kept row again, leaving out `fresh` columns (a rowid
    /// another row may have taken since, which nothing else names).
    func restore(_ tx: Transaction, fresh: [String: Set<String>] = [:]) throws {
        for kept in tables {
            let skip = fresh[kept.table] ?? []
            let indices = kept.columns.indices.filter { !skip.contains(kept.columns[$0]) }
            let columns = SQL.join(indices.map { SQL.identifier(kept.columns[$0]) }, separator: ", ")
            for row in kept.rows {
                try tx.execute("INSERT INTO \(identifier: kept.table) (\(columns)) VALUES (\(list: indices.map { row[$0].databaseValue }))")
            }
        }
    }
}

/// Destructive actions that are cheap to take back keep what they destroyed
/// here for a few seconds, for the person who acted alone. A feature records
/// an entry in the transaction of the action, shows `notice` on the page the
/// actor lands on, and on the undo post `take`s the entry in its own write,
/// checks that nothing changed since, restores and publishes as any change.
///
/// Why a snapshot and not a soft delete: see `Migrations/0011_undo.sql`.
enum UndoJournal {
    /// How long an action can be undone.
    static let window: Int64 = 10
    /// Expired entries stay this long after their window so that a late
    /// Undo gets "too late" rather than "not found"; then they are swept.
    static let kept: Int64 = 10 * 60

    struct Entry: Sendable {
        var id: Int64
        var userID: Int64
        var kind: String
        var targetID: Int64
        var message: String
        var snapshot: RowSnapshot
    }

    /// Records what `userID` just destroyed. Sweeps expired entries first:
    /// the journal is cleaned on every write to it, and by `sweeper`.
    @discardableResult
    static func record(
        _ tx: Transaction, userID: Int64, kind: String, targetID: Int64, message: String, snapshot: RowSnapshot, now: Int64
    ) throws -> Int64 {
        try sweep(tx, now: now)
        let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        return try tx.insertReturningID("""
            INSERT INTO undo_entries (user_id, kind, target_id, message, snapshot, created_at, expires_at)
            VALUES (\(userID), \(kind), \(targetID), \(message), \(json), \(now), \(now + window))
            """)
    }

    /// The newest entry `userID` may still undo among `kinds` (on `targetID`
    /// when given), as the notice the page shows; nil when there is none.
    static func notice(
        _ db: some Queryable, userID: Int64, kinds: [String], targetID: Int64? = nil, now: Int64, action: (Int64) -> String
    ) throws -> Confirm.UndoNotice? {
        let target: SQL = targetID.map { "AND target_id = \($0)" } ?? ""
        guard
            let row = try db.queryOne("""
                SELECT id, message, expires_at FROM undo_entries
                WHERE user_id = \(userID) AND kind IN (\(list: kinds)) \(target) AND expires_at > \(now)
                ORDER BY id DESC LIMIT 1
                """)
        else { return nil }
        let id: Int64 = try row.get("id")
        let expires: Int64 = try row.get("expires_at")
        return Confirm.UndoNotice(message: try row.get("message"), action: action(id), secondsLeft: expires - now)
    }

    /// Takes the entry out of the journal for its undo, inside the undo's
    /// write. Someone else's entry, or one long gone, is not found (404);
    /// one whose window has passed is refused in words.
    static func take(_ tx: Transaction, id: Int64, userID: Int64, kinds: [String], now: Int64) throws -> Entry {
        guard
            let row = try tx.queryOne("""
                SELECT id, user_id, kind, target_id, message, snapshot, expires_at FROM undo_entries
                WHERE id = \(id) AND user_id = \(userID) AND kind IN (\(list: kinds))
                """)
        else { throw HTTPError.notFound("There is nothing of yours to undo here.") }
        guard try row.get("expires_at", as: Int64.self) > now else {
            throw tooLate("the \(window) seconds to undo have passed.")
        }
        try tx.execute("DELETE FROM undo_entries WHERE id = \(id)")
        let json: String = try row.get("snapshot")
        return Entry(
            id: id, userID: try row.get("user_id"), kind: try row.get("kind"), targetID: try row.get("target_id"),
            message: try row.get("message"), snapshot: try JSONDecoder().decode(RowSnapshot.self, from: Data(json.utf8)))
    }

    /// The refusal for an undo that cannot put things back as they were.
    static func tooLate(_ reason: String) -> HTTPError {
        HTTPError(.conflict, "Too late to undo — \(reason)")
    }

    static func sweep(_ tx: Transaction, now: Int64) throws {
        try tx.execute("DELETE FROM undo_entries WHERE expires_at <= \(now - kept)")
    }

    /// Sweeps expired entries once a minute, so what someone destroyed does
    /// not linger when nobody records anything after them.
    static func sweeper(_ app: KithApp) -> PeriodicTask {
        PeriodicTask("undo-sweep", every: 60) { [unowned app] in
            do {
                try app.database.write { tx in try sweep(tx, now: app.now) }
            } catch {
                app.logger.log(["level": "error", "msg": "undo sweep failed", "cause": String(describing: error)])
            }
        }
    }
}

extension RequestContext {
    /// The confirm page for a destructive post, unless the post carries the
    /// token of exactly this confirmation. A post from an old page, a crafted
    /// form or a script that skipped the dialog is asked, never obeyed. The
    /// page posts the same fields again, with the token.
    func unconfirmed(_ confirmation: Confirmation, cancel: String) -> Response? {
        let form = request.form
        if form[Confirm.field] == confirmation.token { return nil }
        let fields = form.names.filter { $0 != Confirm.field && $0 != "_csrf" }.flatMap { name in form.values(name).map { (name, $0) } }
        return app.page(Confirm.page(context: pageContext(), confirmation, action: request.path, fields: fields, cancel: cancel))
    }
}
