import KithStorage

/// Every SQL statement of the ways back in (recovery codes, one-time sign-in
/// links) and of deleting an account.
enum RecoveryStore {
    // MARK: Recovery codes

    /// Marks one unused code of the password account named `usernameKey` as
    /// used and returns the account's id; nil when the username and code do
    /// not match. Runs in the write transaction that signs in, so two browsers
    /// racing with one code cannot both win.
    static func useRecoveryCode(_ tx: Transaction, usernameKey: String, codeHash: String, now: Int64) throws -> Int64? {
        guard let row = try tx.queryOne("""
            SELECT recovery_codes.id, recovery_codes.user_id FROM recovery_codes
            JOIN users ON users.id = recovery_codes.user_id
            WHERE users.username_key = \(usernameKey) AND users.password_hash IS NOT NULL
                AND recovery_codes.code_hash = \(codeHash) AND recovery_codes.used_at IS NULL
            LIMIT 1
            """)
        else { return nil }
        let codeID: Int64 = try row.get("id")
        try tx.execute("UPDATE recovery_codes SET used_at = \(now) WHERE id = \(codeID)")
        return try row.get("user_id")
    }

    /// Signed in without the password: the central check sends this user to
    /// choose a new one before anything else. (`RecoveryRoutes` also ends
    /// every other session, with its live streams.)
    static func requirePasswordChange(_ tx: Transaction, userID: Int64) throws {
        try tx.execute("UPDATE users SET must_change_password = 1 WHERE id = \(userID)")
    }

    // MARK: Sign-in links

    /// The password account with this username (any letter case).
    static func passwordAccountID(_ db: some Queryable, usernameKey: String) throws -> Int64? {
        try db.queryValue(
            "SELECT id FROM users WHERE username_key = \(usernameKey) AND password_hash IS NOT NULL", as: Int64.self)
    }

    static func createLink(
        _ tx: Transaction, tokenHash: String, userID: Int64, purpose: SignInLinks.Purpose, expiresAt: Int64
    ) throws {
        try tx.execute("""
            INSERT INTO sign_in_links (token_hash, user_id, purpose, expires_at)
            VALUES (\(tokenHash), \(userID), \(purpose), \(expiresAt))
            """)
    }

    /// Unused links of one purpose for one user: a fresh operator reset
    /// retires the ones issued before it.
    static func deleteUnusedLinks(_ tx: Transaction, userID: Int64, purpose: SignInLinks.Purpose) throws {
        try tx.execute("DELETE FROM sign_in_links WHERE user_id = \(userID) AND purpose = \(purpose) AND used_at IS NULL")
    }

    /// Links that can no longer be used tell nothing worth keeping.
    static func deleteExpiredLinks(_ tx: Transaction, now: Int64) throws {
        try tx.execute("DELETE FROM sign_in_links WHERE expires_at <= \(now)")
    }

    /// The user a link would sign in, while it is unused and unexpired. Reads only.
    static func linkUser(
        _ db: some Queryable, tokenHash: String, purpose: SignInLinks.Purpose, now: Int64
    ) throws -> User? {
        try db.queryOne("""
            SELECT \(User.columns) FROM sign_in_links JOIN users ON users.id = sign_in_links.user_id
            WHERE sign_in_links.token_hash = \(tokenHash) AND sign_in_links.purpose = \(purpose)
                AND sign_in_links.used_at IS NULL AND sign_in_links.expires_at > \(now)
            """).map(User.init(row:))
    }

    /// Uses a link up: marks it used and returns its user, or nil when it is
    /// unknown, of another purpose, used or expired. One statement, so a link
    /// opened in two browsers at once signs in only one of them.
    static func consumeLink(_ tx: Transaction, tokenHash: String, purpose: SignInLinks.Purpose, now: Int64) throws -> Int64? {
        let rows = try tx.query("""
            UPDATE sign_in_links SET used_at = \(now)
            WHERE token_hash = \(tokenHash) AND purpose = \(purpose) AND used_at IS NULL AND expires_at > \(now)
            RETURNING user_id
            """)
        return try rows.first?.get("user_id", as: Int64.self)
    }

    // MARK: Deleting an account

    /// Removes the user row; sessions, recovery codes and sign-in links go
    /// with it by `ON DELETE CASCADE`. Failed sign-ins name the user by
    /// username, not id, so no foreign key reaches them: they go explicitly,
    /// or the next person to take the name would inherit the throttle.
    static func deleteUser(_ tx: Transaction, userID: Int64, failureScope: String?) throws {
        if let failureScope { try tx.execute("DELETE FROM sign_in_failures WHERE scope = \(failureScope)") }
        try tx.execute("DELETE FROM users WHERE id = \(userID)")
    }
}
