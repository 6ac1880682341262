/// What can run SQL: a `Connection` lent by `Database.read`, or the
/// `Transaction` of `Database.write`. Data-access helpers can take
/// `some Queryable` to serve both.
public protocol Queryable {
    /// Runs one statement to completion and returns the number of rows it
    /// inserted, updated or deleted (0 for any other kind of statement). Rows
    /// it returns are discarded; use `query` for `RETURNING`.
    @discardableResult
    func execute(_ sql: SQL) throws(DatabaseError) -> Int

    /// Runs one statement and collects every row.
    func query(_ sql: SQL) throws(DatabaseError) -> [Row]

    /// Runs one statement and returns its first row, if any; the rest are never
    /// computed.
    func queryOne(_ sql: SQL) throws(DatabaseError) -> Row?

    /// Runs one statement and hands each row to `body` as it is produced, so a
    /// large result is never held in memory at once. An error thrown by `body`
    /// stops the iteration and is rethrown.
    func forEach(_ sql: SQL, _ body: (Row) throws -> Void) throws

    /// Runs one statement and collects what `decode` makes of each row, read
    /// in place: no `Row` is copied out (see `RowView`). For lists read often.
    func query<T>(_ sql: SQL, decode: (RowView) throws -> T) throws -> [T]

    /// Runs every statement of `text` in order, with no arguments, stopping at
    /// the first failure. For migration files and other trusted SQL scripts.
    func executeScript(_ text: String) throws(DatabaseError)

    /// The rowid of the most recent successful INSERT on this connection.
    var lastInsertRowID: Int64 { get }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE on this
    /// connection.
    var changes: Int { get }
}

extension Queryable {
    /// The first column of the first row decoded as `T`, or nil when there is no
    /// row. For aggregates: `try db.queryValue("SELECT count(*) FROM t") as Int?`.
    public func queryValue<T: DatabaseValueConvertible>(_ sql: SQL, as type: T.Type = T.self) throws -> T? {
        guard let row = try queryOne(sql) else { return nil }
        return try row.get(0, as: T.self)
    }
}
