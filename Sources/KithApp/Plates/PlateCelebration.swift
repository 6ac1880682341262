import KithHTTP
import KithStorage

/// A finished game's celebration plays once per player and game, whichever
/// device they open it on. Showing the board never writes: the page's
/// script plays the confetti, then posts here, and from then on the board
/// names the finish without the celebration for that player.
enum PlateCelebration {
    static let seenPost = Route(.post, "/games/:game/celebrated")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(seenPost) { context in try markSeen(context) }
    }

    /// Whether this player has watched this game's celebration already.
    static func seen(_ db: some Queryable, gameID: Int64, userID: Int64) throws -> Bool {
        try PlateStore.celebrationSeen(db, gameID: gameID, userID: userID)
    }

    /// Records it for the viewer; a second post (another tab) changes nothing.
    static func markSeen(_ context: RequestContext) throws -> Response {
        let app = context.app
        let game = try context.write(PlateGameScope.self, parameter: "game") { tx, game in
            try PlateStore.markCelebrationSeen(tx, gameID: game.id, userID: game.userID, now: app.now)
            return game
        }
        // Only its own player's next page changes, so nothing is published.
        return context.isEnhanced ? Response(status: .noContent) : .redirect(to: PlateRoutes.show.path(game.id))
    }
}
