/// Friends as one declared unit: the friends page and its two posts. It
/// keeps no purge: friendships go with the user row (`ON DELETE CASCADE`),
/// and no open page follows a friend list.
enum FriendsFeature {
    /// Emitted inside the transaction that removes a friendship, before its
    /// rows go, with whoever removed it and whoever was removed. Features
    /// that let friends share something declare a handler in their
    /// `Feature.events` to stop sharing it in the same write.
    static let friendshipEnded = "friends.ended"

    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("friends")
        feature.endpoints = FriendRoutes.endpoints(app)
        return feature
    }
}
