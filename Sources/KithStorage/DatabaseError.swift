import CSQLite

/// A failure reported by SQLite or PostgreSQL, or a misuse of this library
/// that SQLite would report the same way.
///
/// PostgreSQL's failures carry the SQLite result code of the same kind (see
/// `init(sqlState:…)`), so code that asks `isUniqueViolation` works on both.
///
/// It carries the SQL text, which holds `?` placeholders, and never the bound
/// values: errors end up in logs, and bound values are user data.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The primary result code, e.g. `SQLITE_CONSTRAINT` (19).
    public let resultCode: Int32
    /// The extended result code, e.g. `SQLITE_CONSTRAINT_UNIQUE` (2067). Equal to
    /// `resultCode` when SQLite has nothing more specific to say.
    public let extendedResultCode: Int32
    /// SQLite's own message, e.g. `UNIQUE constraint failed: users.username_key`.
    public let message: String
    /// The statement that failed, if any.
    public let sql: String?
    /// PostgreSQL's SQLSTATE, e.g. `23505`; nil for SQLite.
    public let sqlState: String?

    public init(resultCode: Int32, extendedResultCode: Int32? = nil, message: String, sql: String? = nil, sqlState: String? = nil) {
        let extended = extendedResultCode ?? resultCode
        // The primary code is always the low byte of the extended one.
        self.resultCode = resultCode & 0xFF
        self.extendedResultCode = extended
        self.message = message
        self.sql = sql
        self.sqlState = sqlState
    }

    /// Captures the most recent error of `handle`. Must run before anything else
    /// touches the connection, which would overwrite it.
    init(connection handle: OpaquePointer, sql: String?) {
        let extended = sqlite3_extended_errcode(handle)
        self.init(
            resultCode: extended & 0xFF,
            extendedResultCode: extended,
            message: String(cString: sqlite3_errmsg(handle)),
            sql: sql
        )
    }

    static func misuse(_ message: String, sql: String? = nil) -> DatabaseError {
        DatabaseError(resultCode: SQLITE_MISUSE, message: message, sql: sql)
    }

    static let closed = DatabaseError.misuse("the database is closed")

    // MARK: - Kinds, decided by result code; the message is for people only.

    /// A UNIQUE or PRIMARY KEY constraint failed. Both mean "this key is taken".
    public var isUniqueViolation: Bool {
        extendedResultCode == KITH_SQLITE_CONSTRAINT_UNIQUE || extendedResultCode == KITH_SQLITE_CONSTRAINT_PRIMARYKEY
    }

    public var isForeignKeyViolation: Bool { extendedResultCode == KITH_SQLITE_CONSTRAINT_FOREIGNKEY }

    public var isCheckViolation: Bool { extendedResultCode == KITH_SQLITE_CONSTRAINT_CHECK }

    public var isNotNullViolation: Bool { extendedResultCode == KITH_SQLITE_CONSTRAINT_NOTNULL }

    /// Another connection (usually another process) held a lock for longer than
    /// the busy timeout.
    public var isBusy: Bool { resultCode == SQLITE_BUSY }

    /// For a UNIQUE violation, the table SQLite names, e.g. `users`.
    public var uniqueViolationTable: String? {
        uniqueViolationTargets.first.flatMap { $0.table }
    }

    /// For a UNIQUE violation, the bare column names SQLite lists, e.g.
    /// `["username_key"]`; empty for any other error, and for a unique index on
    /// an expression, which SQLite reports by index name only.
    public var uniqueViolationColumns: [String] {
        uniqueViolationTargets.compactMap { $0.table == nil ? nil : $0.column }
    }

    /// SQLite offers the columns only inside the message:
    /// `UNIQUE constraint failed: users.org_id, users.email` or, for an
    /// expression index, `UNIQUE constraint failed: index 'users_lower_email'`.
    private var uniqueViolationTargets: [(table: String?, column: String)] {
        guard isUniqueViolation else { return [] }
        let marker = "constraint failed: "
        guard let range = message.firstRange(of: marker) else { return [] }
        let list = message[range.upperBound...]
        if list.hasPrefix("index ") { return [] }
        return list.split(separator: ",").map { item in
            let name = item.trimmingSpaces
            guard let dot = name.lastIndex(of: ".") else { return (nil, String(name)) }
            return (String(name[..<dot]), String(name[name.index(after: dot)...]))
        }
    }

    public var description: String {
        if let sqlState {
            var text = "PostgreSQL error \(sqlState): \(message)"
            if let sql { text += " — SQL: \(sql)" }
            return text
        }
        var text = "SQLite error \(extendedResultCode) (\(String(cString: sqlite3_errstr(extendedResultCode)))): \(message)"
        if let sql { text += " — SQL: \(sql)" }
        return text
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return s
    }
}
