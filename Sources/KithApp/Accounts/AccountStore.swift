import KithStorage

/// Every SQL statement of accounts and sessions.
enum AccountStore {
    enum Failure: Error { case usernameTaken }

    struct Session: Sendable {
        let id: Int64
        let userID: Int64
        let csrfToken: String
        let createdAt: Int64
        let lastSeenAt: Int64
    }

    // MARK: Users

    static func createUser(
        _ tx: Transaction, displayName: String, username: String?, passwordHash: String?, timeZone: String,
        avatar: String, avatarColour: String, now: Int64
    ) throws -> Int64 {
        let key = username.map(AccountRules.usernameKey)
        do {
            return try tx.insertReturningID("""
                INSERT INTO users (display_name, username, username_key, password_hash, time_zone, avatar, avatar_colour, created_at)
                VALUES (\(displayName), \(username), \(key), \(passwordHash), \(timeZone), \(avatar), \(avatarColour), \(now))
                """)
        } catch let error as DatabaseError where error.isUniqueViolation {
            throw Failure.usernameTaken
        }
    }

    static func user(_ db: some Queryable, id: Int64) throws -> User? {
        try db.queryOne("SELECT \(User.columns) FROM users WHERE id = \(id)").map(User.init(row:))
    }

    /// The user with this username (any letter case) and their password hash.
    static func credentials(_ db: some Queryable, username: String) throws -> (user: User, passwordHash: String)? {
        let key = AccountRules.usernameKey(username)
        guard let row = try db.queryOne("""
            SELECT \(User.columns), users.password_hash FROM users
            WHERE username_key = \(key) AND password_hash IS NOT NULL
            """)
        else { return nil }
        return (try User(row: row), try row.get("password_hash"))
    }

    static func setPasswordHash(_ tx: Transaction, userID: Int64, hash: String, mustChange: Bool = false) throws {
        try tx.execute("UPDATE users SET password_hash = \(hash), must_change_password = \(mustChange) WHERE id = \(userID)")
    }

    /// Gives a guest a username and password; the id, and so everything of theirs, stays.
    static func claim(_ tx: Transaction, userID: Int64, username: String, passwordHash: String) throws {
        do {
            let changed = try tx.execute("""
                UPDATE users SET username = \(username), username_key = \(AccountRules.usernameKey(username)),
                    password_hash = \(passwordHash)
                WHERE id = \(userID) AND username IS NULL
                """)
            precondition(changed <= 1)
        } catch {
            throw error.isUniqueViolation ? Failure.usernameTaken : error
        }
    }

    // MARK: Sessions

    static func createSession(
        _ tx: Transaction, userID: Int64, tokenHash: String, csrfToken: String, now: Int64, userAgent: String, address: String
    ) throws {
        try tx.execute("""
            INSERT INTO sessions (user_id, token_hash, csrf_token, created_at, last_seen_at, user_agent, address)
            VALUES (\(userID), \(tokenHash), \(csrfToken), \(now), \(now), \(String(userAgent.prefix(200))), \(address))
            """)
    }

    static func session(_ db: some Queryable, tokenHash: String) throws -> (Session, User)? {
        guard let row = try db.queryOne("""
            SELECT sessions.id AS session_id, sessions.csrf_token, sessions.created_at, sessions.last_seen_at, \(User.columns)
            FROM sessions JOIN users ON users.id = sessions.user_id
            WHERE sessions.token_hash = \(tokenHash)
            """)
        else { return nil }
        let user = try User(row: row)
        let session = Session(
            id: try row.get("session_id"), userID: user.id, csrfToken: try row.get("csrf_token"),
            createdAt: try row.get("created_at"), lastSeenAt: try row.get("last_seen_at"))
        return (session, user)
    }

    static func touchSession(_ tx: Transaction, id: Int64, now: Int64) throws {
        try tx.execute("UPDATE sessions SET last_seen_at = \(now) WHERE id = \(id)")
    }

    static func deleteSession(_ tx: Transaction, id: Int64) throws {
        try tx.execute("DELETE FROM sessions WHERE id = \(id)")
    }

    static func deleteExpiredSessions(_ tx: Transaction, userID: Int64, idleSince: Int64, createdSince: Int64) throws {
        try tx.execute("""
            DELETE FROM sessions WHERE user_id = \(userID) AND (last_seen_at < \(idleSince) OR created_at < \(createdSince))
            """)
    }

    /// The ids of a user's sessions but `keep`, for ending them one by one.
    static func sessionIDs(_ db: some Queryable, userID: Int64, except keep: Int64? = nil) throws -> [Int64] {
        try db.query("SELECT id FROM sessions WHERE user_id = \(userID) AND id IS DISTINCT FROM \(keep)").map { try $0.get("id") }
    }

    /// Whether a username (any letter case) belongs to someone: a read, so a
    /// sign-up for a taken name is answered before any password is hashed.
    static func usernameTaken(_ db: some Queryable, username: String) throws -> Bool {
        try db.queryOne("SELECT 1 FROM users WHERE username_key = \(AccountRules.usernameKey(username))") != nil
    }

    static func deleteSessions(_ tx: Transaction, userID: Int64, except keep: Int64? = nil) throws {
        try tx.execute("DELETE FROM sessions WHERE user_id = \(userID) AND id IS DISTINCT FROM \(keep)")
    }

    // MARK: Recovery codes

    static func replaceRecoveryCodes(_ tx: Transaction, userID: Int64, hashes: [String]) throws {
        try tx.execute("DELETE FROM recovery_codes WHERE user_id = \(userID)")
        for hash in hashes {
            try tx.execute("INSERT INTO recovery_codes (user_id, code_hash) VALUES (\(userID), \(hash))")
        }
    }

    // MARK: Throttle

    static func failures(_ db: some Queryable, scope: String, since: Int64) throws -> (count: Int, oldest: Int64?) {
        let row = try db.queryOne("SELECT count(*) AS n, min(at) AS oldest FROM sign_in_failures WHERE scope = \(scope) AND at >= \(since)")
        return (Int(try row?.get("n", as: Int64.self) ?? 0), try row?.get("oldest", as: Int64?.self) ?? nil)
    }

    static func recordFailure(_ tx: Transaction, scopes: [String], now: Int64, forgetBefore: Int64) throws {
        for scope in scopes {
            try tx.execute("INSERT INTO sign_in_failures (scope, at) VALUES (\(scope), \(now))")
        }
        try tx.execute("DELETE FROM sign_in_failures WHERE at < \(forgetBefore)")
    }

    static func clearFailures(_ tx: Transaction, scope: String) throws {
        try tx.execute("DELETE FROM sign_in_failures WHERE scope = \(scope)")
    }
}
