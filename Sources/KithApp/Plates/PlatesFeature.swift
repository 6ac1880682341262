import KithHTTP
import KithStorage
import KithTemplates

/// Plate games as one declared unit: routes, the game scope, the live
/// topics of a game and of a player's list, the `game` invite kind, the
/// spotting digest, the dashboard section and what deleting an account means.
enum PlatesFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("plates")
        feature.endpoints = PlateRoutes.endpoints(app) + PlateShareRoutes.endpoints(app) + PlateTripRoutes.endpoints(app)
            + PlateCelebration.endpoints(app)
        feature.scopes = [.members(of: PlateGameScope.self, parameter: "game")]
        feature.topics = [
            TopicKind("game") { key, context in
                guard let user = context.user, let id = Int64(pathComponent: key) else { return false }
                return try PlateGameScope.load(id, for: user, in: context.app) != nil
            },
            TopicKind("plates") { key, context in
                guard let user = context.user else { return false }
                return key == String(user.id)
            },
        ]
        feature.invites = [
            InviteKind(
                name: PlateRoutes.inviteKind,
                describe: { id, db in
                    try PlateStore.name(db, gameID: id).map { InvitePreview(name: $0, kindLabel: "plate game", role: "player") }
                },
                join: { tx, id, userID, app in
                    guard let name = try PlateStore.name(tx, gameID: id) else { return .refused(message: "That game has ended.") }
                    guard try PlateStore.addPlayer(tx, gameID: id, userID: userID, now: app.now) else {
                        return .alreadyMember(redirect: PlateRoutes.show.path(id), message: "You're already playing in \(name).")
                    }
                    try PlateRoutes.publishAfterCommit(tx, app, gameID: id)
                    return .joined(redirect: PlateRoutes.show.path(id))
                })
        ]
        feature.notifications = [
            NotificationKind(PlateRoutes.notificationKind) { digest in
                "\(Notifications.listing(digest.actorNames)) spotted \(Notifications.listing(digest.subjects)) in \(digest.scopeTitle)"
            }
        ]
        feature.dashboard = DashboardSection(order: 20, topics: { [PlateRoutes.listTopic($0.id)] }) { user, context in
            try PlateRoutes.dashboardSection(context.app, user: user)
        }
        feature.dashboard?.start = DashboardSections.Start(
            title: "Plate games", empty: "No plate games yet", action: "Start one", href: PlateRoutes.new.path()
        ) { user, context in try context.app.database.read { try PlateStore.games($0, userID: user.id) }.isEmpty }
        let clock = app.configuration.clock
        let notifications = app.notifications
        let invites = app.invites
        feature.purge = { tx, userID in
            var invalidations: [LiveInvalidation] = []
            for gameID in try PlateStore.gameIDs(tx, userID: userID) {
                let before = try PlateStore.playerIDs(tx, gameID: gameID)
                _ = try PlateRoutes.leaveGame(
                    tx, gameID: gameID, userID: userID, now: clock(), notifications: notifications, invites: invites)
                // Boards, feeds and player lists of the games they were in change.
                invalidations += PlateRoutes.invalidations(gameID: gameID, members: before.filter { $0 != userID })
            }
            return invalidations
        }
        return feature
    }
}
