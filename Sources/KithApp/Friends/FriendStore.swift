import KithStorage

/// The SQL of friendships: mutual from the start, stored one row per
/// direction and always written and removed in pairs.
enum FriendStore {
    enum AddOutcome: Equatable {
        case added(Profile)
        case unknown
        case yourself
        case alreadyFriends(Profile)
    }

    static func friends(_ db: some Queryable, userID: Int64) throws -> [Profile] {
        try db.query("""
            SELECT u.id, u.display_name, u.username, u.avatar, u.avatar_colour
            FROM friendships f JOIN users u ON u.id = f.friend_id
            WHERE f.user_id = \(userID) ORDER BY lower(u.display_name), u.id
            """).map(Profile.init(row:))
    }

    static func areFriends(_ db: some Queryable, _ a: Int64, _ b: Int64) throws -> Bool {
        try db.queryOne("SELECT 1 FROM friendships WHERE user_id = \(a) AND friend_id = \(b)") != nil
    }

    /// Befriends whoever goes by `username` (case-insensitively), both ways.
    static func add(_ tx: Transaction, userID: Int64, username: String, now: Int64) throws -> AddOutcome {
        let key = AccountRules.usernameKey(username)
        guard let row = try tx.queryOne(
            "SELECT id, display_name, username, avatar, avatar_colour FROM users WHERE username_key = \(key)")
        else { return .unknown }
        let friend = try Profile(row: row)
        if friend.id == userID { return .yourself }
        if try areFriends(tx, userID, friend.id) { return .alreadyFriends(friend) }
        try tx.execute("""
            INSERT INTO friendships (user_id, friend_id, created_at) VALUES (\(userID), \(friend.id), \(now)), (\(friend.id), \(userID), \(now))
            """)
        return .added(friend)
    }

    /// Ends the friendship both ways. What the two shared goes with it, but
    /// that belongs to the features that shared it (`FriendsFeature.friendshipEnded`).
    static func remove(_ tx: Transaction, userID: Int64, friendID: Int64) throws {
        try tx.execute("""
            DELETE FROM friendships WHERE (user_id = \(userID) AND friend_id = \(friendID)) OR (user_id = \(friendID) AND friend_id = \(userID))
            """)
    }
}
