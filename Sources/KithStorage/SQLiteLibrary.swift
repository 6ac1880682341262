import CSQLite

/// Process-wide SQLite set-up, performed exactly once before the first connection opens.
enum SQLiteLibrary {
    /// `sqlite3_config` is only legal before `sqlite3_initialize`, and Swift runs a
    /// static initializer exactly once even under contention, which makes it the
    /// once-flag. The outcome is kept so every `Database.init` can report it.
    private static let setUp: DatabaseError? = {
        // A build without thread support cannot serve a reader pool at all.
        guard sqlite3_threadsafe() != 0 else {
            return DatabaseError(
                resultCode: SQLITE_MISUSE,
                message: "the linked SQLite was built with SQLITE_THREADSAFE=0 and cannot be shared between threads"
            )
        }
        // Multi-thread mode: no per-connection mutex, because every connection is
        // lent to one thread at a time by `Database`. These calls fail with
        // SQLITE_MISUSE if another part of the process already initialized SQLite;
        // that is harmless, since every connection is also opened with
        // SQLITE_OPEN_NOMUTEX.
        _ = kith_sqlite3_config_multithread()
        // Memory statistics take a global mutex on every allocation, which would
        // serialize otherwise independent connections.
        _ = kith_sqlite3_config_memstatus(0)
        // Each connection would otherwise fill a block of twenty pages
        // (about 87 KB) the moment it first reads, however few it uses; a
        // server whose readers each touch a handful of pages holds that
        // much per connection for nothing. The cache still grows, page by
        // page, to its limit, and keeps what it took.
        _ = kith_sqlite3_config_pagecache_on_demand()
        let rc = sqlite3_initialize()
        guard rc == SQLITE_OK else {
            return DatabaseError(resultCode: rc, message: "sqlite3_initialize failed")
        }
        return nil
    }()

    static func ensureInitialized() throws(DatabaseError) {
        if let error = setUp { throw error }
    }
}
