import KithStorage

/// Friends as one declared unit: the friends page and its two posts. It
/// keeps no purge: friendships go with the user row (`ON DELETE CASCADE`),
/// and no open page follows a friend list.
enum FriendsFeature {
    /// Emitted inside the transaction that removes a friendship, before its
    /// rows go, with whoever removed it and whoever was removed. Features
    /// that let friends share something declare a handler in their
    /// `Feature.events` to stop sharing it in the same write.
    static let friendshipEnded = "friends.ended"

    // What other features may ask of Friends; the rest is its own.

    /// Someone's friends, in the order the friends page lists them.
    static func friends(of userID: Int64, in db: some Queryable) throws -> [Profile] {
        try FriendStore.friends(db, userID: userID)
    }

    /// The friends page, and where adding a friend posts.
    static let page = FriendRoutes.index
    static let add = FriendRoutes.add

    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("friends")
        feature.endpoints = FriendRoutes.endpoints(app)
        return feature
    }
}
