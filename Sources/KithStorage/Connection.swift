import Synchronization

/// The connection `Database.read` lends (and `Database.write` wraps in a
/// `Transaction`): a SQLite connection or a PostgreSQL session, behind one
/// type so that application code is the same on both.
///
/// Application code must not keep it: it is lent to the calling thread for
/// the length of the closure, and any use outside that window stops the
/// program with a clear message rather than racing.
public final class Connection: @unchecked Sendable {
    enum Backend {
        case sqlite(SQLiteConnection)
        case postgres(PostgresConnection)
    }

    let backend: Backend
    /// See `SQLiteConnection.owner`; the PostgreSQL session has no check of
    /// its own, so this one guards it.
    private let owner = Atomic<UInt>(0)

    init(_ backend: Backend) {
        self.backend = backend
    }

    /// Which SQL the connection speaks, for the rare statement that must differ.
    public var dialect: SQLDialect {
        switch backend {
        case .sqlite: .sqlite
        case .postgres: .postgres
        }
    }

    var statementCounter: StatementCounter? {
        get {
            switch backend {
            case .sqlite(let c): c.statementCounter
            case .postgres(let c): c.statementCounter
            }
        }
        set {
            switch backend {
            case .sqlite(let c): c.statementCounter = newValue
            case .postgres(let c): c.statementCounter = newValue
            }
        }
    }

    /// Statements compiled so far, cached or not; lets tests prove cache reuse.
    var preparedStatementCount: Int {
        switch backend {
        case .sqlite(let c): c.preparedStatementCount
        case .postgres(let c): c.preparedStatementCount
        }
    }

    // MARK: - Lending

    func lend(to thread: UInt) {
        owner.store(thread, ordering: .relaxed)
        if case .sqlite(let c) = backend { c.lend(to: thread) }
    }

    func reclaim() {
        owner.store(0, ordering: .relaxed)
        if case .sqlite(let c) = backend { c.reclaim() }
    }

    private func checkAccess() {
        precondition(
            owner.load(ordering: .relaxed) == ThreadIdentity.current,
            "Connection used outside the Database.read/write closure that lent it, or from another thread"
        )
    }

    // MARK: - Transactions

    /// Whether a transaction is open and may still commit.
    var isInTransaction: Bool {
        switch backend {
        case .sqlite(let c): c.isInTransaction
        case .postgres(let c): c.isInTransaction
        }
    }

    func beginWrite() throws(DatabaseError) {
        switch backend {
        case .sqlite(let c): try c.begin(immediate: true)
        case .postgres(let c): try c.begin(write: true)
        }
    }

    func beginRead() throws(DatabaseError) {
        switch backend {
        case .sqlite(let c): try c.begin(immediate: false)
        case .postgres(let c): try c.begin(write: false)
        }
    }

    func commit() throws(DatabaseError) {
        switch backend {
        case .sqlite(let c): try c.commit()
        case .postgres(let c): try c.commit()
        }
    }

    func rollbackIfNeeded() {
        switch backend {
        case .sqlite(let c): c.rollbackIfNeeded()
        case .postgres(let c): c.rollbackIfNeeded()
        }
    }

    func close() {
        switch backend {
        case .sqlite(let c): c.close()
        case .postgres(let c): c.close()
        }
    }

    /// Runs uncached, for the rare statement that is run once.
    @discardableResult
    func execute(_ sql: SQL, cached: Bool) throws(DatabaseError) -> Int {
        switch backend {
        case .sqlite(let c): try c.execute(sql, cached: cached)
        case .postgres(let c): try c.execute(sql, cached: cached)
        }
    }

    func queryOne(_ sql: SQL, cached: Bool) throws(DatabaseError) -> Row? {
        switch backend {
        case .sqlite(let c): try c.queryOne(sql, cached: cached)
        case .postgres(let c): try c.query(sql, cached: cached).first
        }
    }

    /// Whether the session still answers, for `/healthz`.
    func ping() throws(DatabaseError) {
        _ = try queryOne("SELECT 1", cached: true)
    }
}

extension Connection: Queryable {
    @discardableResult
    public func execute(_ sql: SQL) throws(DatabaseError) -> Int {
        checkAccess()
        return try execute(sql, cached: true)
    }

    public func query(_ sql: SQL) throws(DatabaseError) -> [Row] {
        checkAccess()
        switch backend {
        case .sqlite(let c): return try c.query(sql)
        case .postgres(let c): return try c.query(sql, cached: true)
        }
    }

    public func queryOne(_ sql: SQL) throws(DatabaseError) -> Row? {
        checkAccess()
        return try queryOne(sql, cached: true)
    }

    public func query<T>(_ sql: SQL, decode: (RowView) throws -> T) throws -> [T] {
        checkAccess()
        switch backend {
        case .sqlite(let c): return try c.query(sql, decode: decode)
        case .postgres(let c): return try c.query(sql, cached: true).map { try decode(RowView($0)) }
        }
    }

    public func forEach(_ sql: SQL, _ body: (Row) throws -> Void) throws {
        checkAccess()
        switch backend {
        case .sqlite(let c):
            try c.forEach(sql, body)
        case .postgres(let c):
            // libpq hands over the whole result at once; iterating it keeps
            // the callers' shape, not the streaming.
            for row in try c.query(sql, cached: true) { try body(row) }
        }
    }

    public func executeScript(_ text: String) throws(DatabaseError) {
        checkAccess()
        switch backend {
        case .sqlite(let c): try c.executeScript(text)
        case .postgres(let c): try c.executeScript(text)
        }
    }

    /// On PostgreSQL, the value the session last drew from a sequence
    /// (`lastval()`), which an INSERT into a table with an identity key
    /// sets; 0 when it drew none. `RETURNING id` says the same on both and
    /// is what new code should use.
    public var lastInsertRowID: Int64 {
        checkAccess()
        switch backend {
        case .sqlite(let c): return c.lastInsertRowID
        case .postgres(let c): return c.lastInsertRowID
        }
    }

    public var changes: Int {
        checkAccess()
        switch backend {
        case .sqlite(let c): return c.changes
        case .postgres(let c): return c.changes
        }
    }
}
