import KithStorage

extension Transaction {
    /// Runs an INSERT of one row and returns the id the database gave it.
    /// Read through `RETURNING id` rather than SQLite's last-insert rowid, a
    /// per-connection value that PostgreSQL's identity columns have no twin
    /// of, so the same statement runs on both stores.
    func insertReturningID(_ insert: SQL) throws -> Int64 {
        guard let id = try queryValue("\(insert) RETURNING id", as: Int64.self) else {
            throw InsertReturnedNoRow(sql: insert.description)
        }
        return id
    }
}

/// An INSERT meant to add one row added none (its SELECT found nothing).
struct InsertReturnedNoRow: Error, CustomStringConvertible {
    let sql: String
    var description: String { "the INSERT added no row — SQL: \(sql)" }
}
