import Glibc

/// Applies the `NNNN_name.sql` files of a directory in numeric order, each once.
///
/// Each file runs in its own write transaction together with its row in
/// `schema_migrations`, so a file is either wholly applied and recorded or not
/// at all. A failure stops the run, leaving the earlier files applied.
///
/// Migration files must not contain BEGIN/COMMIT. Foreign keys stay enforced,
/// and `PRAGMA foreign_keys` is a no-op inside a transaction; instead, checks are
/// deferred to the end of each file (`PRAGMA defer_foreign_keys`), so a table
/// can be rebuilt in several steps, and `PRAGMA foreign_key_check` must come
/// back empty before the file commits.
public struct Migrator: Sendable {
    public let database: Database
    /// Every migration file found, in order.
    public let migrations: [Migration]

    /// Loads and validates the directory's migration files. Files not ending in
    /// `.sql` are ignored; a badly named `.sql` file or a repeated number is an
    /// error, so a typo cannot silently skip a migration.
    ///
    /// A PostgreSQL database takes its files from the `postgres` folder
    /// inside `directory`, numbered and named as SQLite's; each dialect keeps
    /// its own checksums, in its own database.
    public init(database: Database, directory: String) throws(MigrationError) {
        self.database = database
        let folder = database.dialect == .postgres ? (directory.hasSuffix("/") ? directory : directory + "/") + "postgres" : directory
        self.migrations = try Self.load(directory: folder)
    }

    /// Migrations already applied, from `schema_migrations`, in version order.
    public var applied: [AppliedMigration] {
        get throws {
            try database.read { connection in
                guard try Self.hasBookkeepingTable(connection) else { return [] }
                return try connection.query("SELECT version, name, applied_at FROM schema_migrations ORDER BY version").map { row in
                    AppliedMigration(version: try row.get("version"), name: try row.get("name"), appliedAt: try row.get("applied_at"))
                }
            }
        }
    }

    /// Migrations not yet applied, in the order `migrate` would apply them.
    public var pending: [Migration] {
        get throws {
            let done = Set(try applied.map(\.version))
            return migrations.filter { !done.contains($0.version) }
        }
    }

    /// Applies every pending migration in order and returns the names of the
    /// files applied by this call (empty when the schema is up to date).
    @discardableResult
    public func migrate() throws -> [String] {
        try database.write { transaction in
            guard transaction.dialect == .sqlite else {
                try transaction.execute("""
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version BIGINT PRIMARY KEY,
                        name TEXT NOT NULL,
                        applied_at TEXT NOT NULL,
                        checksum TEXT
                    )
                    """)
                return
            }
            try transaction.execute("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at TEXT NOT NULL,
                    checksum TEXT
                )
                """)
            // Databases made before checksums were kept get the column, and
            // their applied files are trusted as they are now, once.
            let columns = try transaction.query("SELECT name FROM pragma_table_info('schema_migrations')").map { try $0.get("name") as String }
            if !columns.contains("checksum") {
                try transaction.execute("ALTER TABLE schema_migrations ADD COLUMN checksum TEXT")
            }
            for migration in migrations {
                try transaction.execute("""
                    UPDATE schema_migrations SET checksum = \(migration.checksum)
                    WHERE version = \(migration.version) AND checksum IS NULL
                    """)
            }
        }
        try verifyApplied()
        var appliedNow: [String] = []
        for migration in migrations where try apply(migration) {
            appliedNow.append(migration.name)
        }
        return appliedNow
    }

    /// Refuses, naming the file, when an applied migration's text changed.
    private func verifyApplied() throws {
        let recorded = try database.read { connection in
            try connection.query("SELECT version, checksum FROM schema_migrations WHERE checksum IS NOT NULL").map { row in
                (try row.get("version") as Int, try row.get("checksum") as String)
            }
        }
        let byVersion = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for (version, checksum) in recorded {
            if let migration = byVersion[version], migration.checksum != checksum {
                throw MigrationError.changedAfterApplying(file: migration.name)
            }
        }
    }

    /// Applies one migration unless already recorded; true if it applied it.
    /// The check runs inside the write transaction, so two processes migrating
    /// the same file at once cannot both apply a file.
    private func apply(_ migration: Migration) throws -> Bool {
        do {
            return try database.write { transaction in
                let recorded = try transaction.queryOne("SELECT 1 FROM schema_migrations WHERE version = \(migration.version)")
                guard recorded == nil else { return false }
                guard transaction.dialect == .sqlite else {
                    // PostgreSQL checks foreign keys per statement unless a
                    // constraint is declared DEFERRABLE; a file that rebuilds
                    // a table declares so itself.
                    try transaction.executeScript(migration.sql)
                    try transaction.execute("""
                        INSERT INTO schema_migrations (version, name, applied_at, checksum)
                        VALUES (\(migration.version), \(migration.name),
                            to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), \(migration.checksum))
                        """)
                    return true
                }
                // Resets itself at commit or rollback.
                try transaction.execute("PRAGMA defer_foreign_keys = ON")
                try transaction.executeScript(migration.sql)
                try transaction.execute("""
                    INSERT INTO schema_migrations (version, name, applied_at, checksum)
                    VALUES (\(migration.version), \(migration.name), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), \(migration.checksum))
                    """)
                let violations = try transaction.query("PRAGMA foreign_key_check").prefix(20).map { row in
                    let table = (try? row.get("table", as: String.self)) ?? "?"
                    let rowid = (try? row.get("rowid", as: Int64?.self)).flatMap { $0 }.map { "rowid \($0)" } ?? "a row"
                    let parent = (try? row.get("parent", as: String.self)) ?? "?"
                    return "\(table) \(rowid) -> \(parent)"
                }
                guard violations.isEmpty else {
                    throw MigrationError.foreignKeyViolations(file: migration.name, violations: violations)
                }
                return true
            }
        } catch let error as DatabaseError {
            throw MigrationError.failed(file: migration.name, error: error)
        }
    }

    private static func hasBookkeepingTable(_ connection: Connection) throws -> Bool {
        switch connection.dialect {
        case .sqlite: try connection.queryOne("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'") != nil
        case .postgres: try connection.queryOne("SELECT 1 WHERE to_regclass('schema_migrations') IS NOT NULL") != nil
        }
    }

    private static func load(directory: String) throws(MigrationError) -> [Migration] {
        guard let fileNames = Self.fileNames(in: directory) else {
            throw .unreadableDirectory(path: directory, reason: String(cString: strerror(errno)))
        }
        var byVersion: [Int: [String]] = [:]
        // Sorted so that error reports do not depend on directory order.
        for fileName in fileNames.sorted() where fileName.lowercased().hasSuffix(".sql") {
            guard let version = Migration.version(fromFileName: fileName) else {
                throw .badFileName(fileName)
            }
            byVersion[version, default: []].append(fileName)
        }
        if let (version, files) = byVersion.filter({ $0.value.count > 1 }).min(by: { $0.key < $1.key }) {
            throw .duplicateVersion(version, files: files)
        }
        let separator = directory.hasSuffix("/") ? "" : "/"
        var migrations: [Migration] = []
        for (version, files) in byVersion.sorted(by: { $0.key < $1.key }) {
            let name = files[0]
            guard let bytes = Self.contents(of: directory + separator + name) else {
                throw .unreadableFile(name: name, reason: String(cString: strerror(errno)))
            }
            guard let sql = String(validating: bytes, as: UTF8.self) else {
                throw .unreadableFile(name: name, reason: "not valid UTF-8")
            }
            migrations.append(Migration(version: version, name: name, sql: sql))
        }
        return migrations
    }

    // Plain POSIX rather than Foundation: no file of KithStorage imports
    // Foundation, so a program built on it without KithApp (the benchmark)
    // never loads it, and two calls are not worth its megabytes of memory.
    private static func fileNames(in directory: String) -> [String]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
        }
    }
}
