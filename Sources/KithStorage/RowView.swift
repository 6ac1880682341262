import CSQLite

/// The row a query is on, read in place: `query(_:decode:)` hands one to its
/// closure for each row, and whatever the closure builds is all that is kept.
///
/// `Row` copies every value out first, into an array of its own per row: for
/// a list read on every request, that array and the values' wrapping cost
/// more than SQLite's work. A view is valid only inside the closure it is
/// given to; on SQLite it reads the statement's current row, so a view kept
/// and read later stops the program rather than answering from another row.
///
///     let fortunes = try db.query("SELECT id, message FROM fortune") { row in
///         Fortune(id: try row.get(0), message: try row.get(1))
///     }
public struct RowView {
    enum Source {
        case statement(Statement, step: UInt64)
        case row(Row)
    }

    let source: Source

    init(_ statement: Statement) {
        source = .statement(statement, step: statement.stepCount)
    }

    init(_ row: Row) {
        source = .row(row)
    }

    public var count: Int {
        switch source {
        case .statement(let statement, let step):
            statement.checkCurrent(step)
            return Int(sqlite3_column_count(statement.handle))
        case .row(let row):
            return row.count
        }
    }

    /// The raw value at `index`, or nil past the last column.
    @usableFromInline
    func value(at index: Int) -> DatabaseValue? {
        switch source {
        case .statement(let statement, let step):
            statement.checkCurrent(step)
            guard index >= 0, index < Int(sqlite3_column_count(statement.handle)) else { return nil }
            return statement.value(at: Int32(index))
        case .row(let row):
            return row.values.indices.contains(index) ? row.values[index] : nil
        }
    }

    /// The column at `index` decoded as `T`, with `Row.get`'s errors.
    /// Inlinable for the same reason: specialized for each caller's `T`.
    @inlinable
    public func get<T: DatabaseValueConvertible>(_ index: Int, as type: T.Type = T.self) throws(RowDecodingError) -> T {
        guard let value = value(at: index) else { throw outOfRange(index, expecting: T.self) }
        if let decoded = T(databaseValue: value) { return decoded }
        throw undecodable(index: index, value: value, expecting: T.self)
    }

    /// A copy that outlives the closure, for the rare row worth keeping whole.
    public func copy() -> Row {
        switch source {
        case .statement(let statement, let step):
            statement.checkCurrent(step)
            return statement.row(columns: statement.columns())
        case .row(let row):
            return row
        }
    }

    // The failures, out of line: they run once per mistake, not once per read.

    @usableFromInline
    func outOfRange(_ index: Int, expecting type: Any.Type) -> RowDecodingError {
        RowDecodingError(column: "#\(index)", expectedType: "\(type)", problem: .indexOutOfRange(count: count))
    }

    @usableFromInline
    func undecodable(index: Int, value: DatabaseValue, expecting type: Any.Type) -> RowDecodingError {
        let problem: RowDecodingError.Problem = value.isNull ? .unexpectedNull : .typeMismatch(storageClass: value.storageClass)
        return RowDecodingError(column: copy().columnNames[index], expectedType: "\(type)", problem: problem)
    }
}
