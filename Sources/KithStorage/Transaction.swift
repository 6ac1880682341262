/// The write transaction handed to `Database.write`: runs SQL on the writer
/// connection between `BEGIN IMMEDIATE` and `COMMIT`, and collects work to do
/// once the commit has succeeded.
///
/// Valid only inside the closure it was passed to.
public final class Transaction {
    private let connection: Connection
    private var afterCommitActions: [() -> Void] = []
    private var isOpen = true

    init(connection: Connection) {
        self.connection = connection
    }

    /// Registers `action` to run once this transaction has committed, and never
    /// if it rolls back. For effects that must not be seen before the data is
    /// (publishing live events, waking waiters).
    ///
    /// Actions run in registration order on the writing thread, right after
    /// COMMIT and before the next write transaction can begin, so they observe
    /// commits in commit order. They must not call `Database.write` themselves
    /// and should be brief, since writers queue behind them.
    public func afterCommit(_ action: @escaping () -> Void) {
        checkOpen()
        afterCommitActions.append(action)
    }

    /// Ends the transaction's usable life and hands over the actions, so the
    /// closure's `Transaction` cannot be used from within them.
    func close() -> [() -> Void] {
        isOpen = false
        defer { afterCommitActions = [] }
        return afterCommitActions
    }

    private func checkOpen() {
        precondition(isOpen, "Transaction used after its Database.write closure returned")
    }
}

extension Transaction: Queryable {
    @discardableResult
    public func execute(_ sql: SQL) throws(DatabaseError) -> Int {
        checkOpen()
        return try connection.execute(sql)
    }

    public func query(_ sql: SQL) throws(DatabaseError) -> [Row] {
        checkOpen()
        return try connection.query(sql)
    }

    public func queryOne(_ sql: SQL) throws(DatabaseError) -> Row? {
        checkOpen()
        return try connection.queryOne(sql)
    }

    public func query<T>(_ sql: SQL, decode: (RowView) throws -> T) throws -> [T] {
        checkOpen()
        return try connection.query(sql, decode: decode)
    }

    public func forEach(_ sql: SQL, _ body: (Row) throws -> Void) throws {
        checkOpen()
        try connection.forEach(sql, body)
    }

    public func executeScript(_ text: String) throws(DatabaseError) {
        checkOpen()
        try connection.executeScript(text)
    }

    public var lastInsertRowID: Int64 {
        checkOpen()
        return connection.lastInsertRowID
    }

    public var changes: Int {
        checkOpen()
        return connection.changes
    }
}

extension Transaction {
    /// Which SQL the transaction's connection speaks.
    public var dialect: SQLDialect { connection.dialect }
}
