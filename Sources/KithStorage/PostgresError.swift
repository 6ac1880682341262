import CSQLite

extension DatabaseError {
    /// SQLite's code for a trigger's `RAISE(ABORT, …)`, which Swift cannot
    /// import (it is a macro built with `|` and `<<`).
    static let constraintTrigger: Int32 = SQLITE_CONSTRAINT | (7 << 8)

    /// A PostgreSQL failure as the SQLite failure of the same kind, so callers
    /// test one set of kinds: unique, foreign key, check and not-null
    /// violations, a trigger's refusal (P0001, raised with the same text as
    /// SQLite's RAISE), a write in a read-only transaction, and serialization failures and deadlocks, which are
    /// worth retrying like SQLITE_BUSY. The message is rebuilt the SQLite way
    /// from the error's fields, never from its detail, which holds the values.
    init(sqlState: String?, primary: String, table: String?, column: String?, constraint: String?, detail: String?, sql: String?) {
        let target = { (name: String?) in [table, name].compactMap { $0 }.joined(separator: ".") }
        let code: Int32
        var message = primary
        switch sqlState {
        case "23505":
            code = KITH_SQLITE_CONSTRAINT_UNIQUE
            let columns = Self.keyColumns(detail: detail)
            if let columns, !columns.contains("(") {
                message = "UNIQUE constraint failed: " + columns.split(separator: ",").map { target($0.trimmingSpaces.description) }.joined(separator: ", ")
            } else {
                message = "UNIQUE constraint failed: index '\(constraint ?? "?")'"
            }
        case "23503":
            code = KITH_SQLITE_CONSTRAINT_FOREIGNKEY
            message = "FOREIGN KEY constraint failed"
        case "23514":
            code = KITH_SQLITE_CONSTRAINT_CHECK
            message = "CHECK constraint failed: \(constraint ?? "?")"
        case "23502":
            code = KITH_SQLITE_CONSTRAINT_NOTNULL
            message = "NOT NULL constraint failed: \(target(column))"
        case "P0001":
            code = Self.constraintTrigger
        case "25006":
            // A write inside Database.read, refused by its READ ONLY transaction.
            code = SQLITE_READONLY
        case "40001", "40P01", "55P03":
            code = SQLITE_BUSY
        case let state? where state.hasPrefix("08") || state.hasPrefix("57P"):
            code = SQLITE_IOERR
        case nil:
            // No SQLSTATE: libpq's own failure, almost always a lost connection.
            code = SQLITE_IOERR
        default:
            code = SQLITE_ERROR
        }
        self.init(resultCode: code & 0xFF, extendedResultCode: code, message: message, sql: sql, sqlState: sqlState ?? "08006")
    }

    /// `a, b` out of `Key (a, b)=(…) already exists.`; the values stay out.
    private static func keyColumns(detail: String?) -> String? {
        guard let detail, let open = detail.firstRange(of: "Key ("), let close = detail.firstRange(of: ")=(") else { return nil }
        guard open.upperBound <= close.lowerBound else { return nil }
        return String(detail[open.upperBound..<close.lowerBound])
    }

    /// The connection itself failed (lost, refused, or never opened).
    var isConnectionFailure: Bool {
        sqlState.map { $0.hasPrefix("08") || $0.hasPrefix("57P") } ?? false
    }
}
