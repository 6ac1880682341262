import KithStorage

/// The SQL of the settings pages: profile and appearance, the password hash
/// for re-checking, the sessions list and the count of unused recovery codes.
/// Password writes, session starts and code replacement reuse `AccountStore`.
enum SettingsStore {
    /// One signed-in browser, as the sessions list shows it.
    struct SessionSummary: Sendable, Equatable {
        let id: Int64
        let createdAt: Int64
        let lastSeenAt: Int64
        let userAgent: String
        let address: String
    }

    /// Saves the profile form. A guest's `username` is nil and stays nil; a
    /// password account's is rewritten with its lowercase key, so the UNIQUE
    /// index on `username_key` refuses a name someone else has in any case.
    static func updateProfile(
        _ tx: Transaction, userID: Int64, displayName: String, username: String?, email: String?, avatar: String,
        timeZone: String
    ) throws {
        do {
            if let username {
                try tx.execute("""
                    UPDATE users SET display_name = \(displayName), username = \(username),
                        username_key = \(AccountRules.usernameKey(username)), email = \(email), avatar = \(avatar),
                        time_zone = \(timeZone)
                    WHERE id = \(userID) AND username IS NOT NULL
                    """)
            } else {
                try tx.execute("""
                    UPDATE users SET display_name = \(displayName), email = \(email), avatar = \(avatar), time_zone = \(timeZone)
                    WHERE id = \(userID)
                    """)
            }
        } catch {
            throw error.isUniqueViolation ? AccountStore.Failure.usernameTaken : error
        }
    }

    static func updateAppearance(
        _ tx: Transaction, userID: Int64, theme: User.ThemePreference, numberStyle: User.NumberStyle
    ) throws {
        try tx.execute("UPDATE users SET theme = \(theme), number_style = \(numberStyle) WHERE id = \(userID)")
    }

    /// The stored hash to check a typed password against; nil for a guest.
    static func passwordHash(_ db: some Queryable, userID: Int64) throws -> String? {
        try db.queryValue("SELECT password_hash FROM users WHERE id = \(userID)", as: String?.self) ?? nil
    }

    /// The user's sessions that can still sign someone in (idle and absolute
    /// lifetimes not yet passed), most recently used first. Expired rows stay
    /// in the table until something deletes them, but they are no device.
    static func liveSessions(_ db: some Queryable, userID: Int64, now: Int64) throws -> [SessionSummary] {
        let idleSince = now - Sessions.idleLifetime
        let createdSince = now - Sessions.absoluteLifetime
        return try db.query("""
            SELECT id, created_at, last_seen_at, user_agent, address FROM sessions
            WHERE user_id = \(userID) AND last_seen_at > \(idleSince) AND created_at > \(createdSince)
            ORDER BY last_seen_at DESC, id DESC
            """
        ).map { row in
            SessionSummary(
                id: try row.get("id"), createdAt: try row.get("created_at"), lastSeenAt: try row.get("last_seen_at"),
                userAgent: try row.get("user_agent"), address: try row.get("address"))
        }
    }

    static func unusedRecoveryCodes(_ db: some Queryable, userID: Int64) throws -> Int {
        Int(try db.queryValue("SELECT count(*) FROM recovery_codes WHERE user_id = \(userID) AND used_at IS NULL", as: Int64.self) ?? 0)
    }
}
