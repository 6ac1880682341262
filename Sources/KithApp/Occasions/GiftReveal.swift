import KithStorage

/// The moment a gift is opened. The reveal itself is the browser's
/// (`Public/js/reveal.js`, fed by the gift's own page); the server's part is
/// telling the giver at once rather than with the next digest.
enum GiftReveal {
    /// Delivers the giver's "your gift was opened" now: an inbox entry, the
    /// inbox badge live, and a push where they turned it on. Called after the
    /// unlock committed. If it fails the digest is still waiting, and the
    /// sweeper delivers it within minutes, so the unlock never fails for it.
    ///
    /// Once across instances, like the sweep: the entry is made and the
    /// digest removed in one write transaction, so whichever of this and a
    /// sweep elsewhere takes the write lock second finds nothing waiting.
    /// The push that follows is at most once (`Notifications.sweep`).
    static func tellGiverNow(_ app: KithApp, occasionID: Int64, giverID: Int64) {
        _ = try? app.notifications.deliverNow(kind: OccasionNews.unlocked, scope: OccasionRoutes.topic(occasionID), to: [giverID])
    }
}
