import KithHTTP
import KithStorage
import KithTemplates

/// Trips: a game's numbers and chart, ending a trip (its board stays, no
/// more spots), and "new trip, same players" in one tap. All under
/// `PlateGameScope`, so outsiders get 404; ending, resuming and starting are
/// the host's.
enum PlateTripRoutes {
    static let page = Route(.get, "/games/:game/trip")
    static let end = Route(.post, "/games/:game/trip/end")
    static let next = Route(.post, "/games/:game/trip/next")
    static let resume = Route(.post, "/games/:game/trip/resume")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(page) { context in try tripPage(context) }
        Endpoint(end) { context in try endPost(context) }
        Endpoint(next) { context in try nextPost(context) }
        Endpoint(resume) { context in try resumePost(context) }
    }

    static let ended = "This trip has ended. Its board stays as it was; start the next one from it."

    static func endConfirmation(_ name: String) -> Confirmation {
        Confirmation("End \(name)?", "Its board stays as it is, and nobody can spot anything more on it.", button: "End the trip")
    }

    /// The board's trip row for this viewer.
    static func controls(_ db: some Queryable, game: PlateGameScope, zone: String) throws -> PlateTripControls {
        let endedAt = try PlateTripStore.endedAt(db, gameID: game.id)
        let nextTrip = try PlateTripStore.next(db, gameID: game.id)
        let canManage = game.role.canManageTrips
        var controls = PlateTripControls(
            page: page.path(game.id), endedOn: endedAt.map { day($0, zone: zone) },
            endAction: canManage && endedAt == nil ? end.path(game.id) : nil, nextAction: canManage ? next.path(game.id) : nil,
            nextTrip: nextTrip.map { PlateRoutes.show.path($0) })
        controls.endConfirmation = endConfirmation(game.name)
        // Ending is undone by resuming, until the next trip takes over.
        controls.resumeAction = canManage && endedAt != nil && nextTrip == nil ? resume.path(game.id) : nil
        return controls
    }

    /// "Wed 2 Dec 2026" in the viewer's zone.
    static func day(_ instant: Int64, zone: String) -> String {
        let human = TimeText.local(instant, zone: zone, withYear: true).human
        return String(human.prefix { $0 != "," })
    }

    static func tripPage(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        let frame = PlateRoutes.frame(context, topics: [game.topic])
        let zone = context.user?.timeZone ?? TimeZones.serverDefault
        let now = context.app.now
        var data = try context.app.database.read { db in
            (
                regions: try PlateStore.regions(db, ruleset: game.ruleset), spots: try PlateStore.spots(db, gameID: game.id),
                endedAt: try PlateTripStore.endedAt(db, gameID: game.id), controls: try controls(db, game: game, zone: zone),
                earlier: try PlateTripStore.earlier(db, gameID: game.id, userID: game.userID)
            )
        }
        data.controls.page = ""
        let playable = Set(data.regions.map(\.code))
        let stats = PlateTripStats.make(
            mode: game.mode, spots: data.spots.filter { playable.contains($0.region) }, target: data.regions.count, endedAt: data.endedAt, now: now)
        let model = PlateTripPage.Model(
            gameName: game.name, board: PlateRoutes.show.path(game.id), isCompetitive: game.mode == .competitive, counted: stats.counted,
            target: stats.target, daysToFinish: stats.daysToFinish, days: stats.days, pace: pace(stats.pacePerDay),
            firstRegion: stats.firstRegion, lastRegion: stats.lastRegion,
            leaders: stats.leaders.map { PlateTripPage.Leader(name: $0.name, count: $0.count) }, daily: stats.daily, controls: data.controls,
            earlier: data.earlier.map { trip in
                PlateTripPage.Trip(
                    name: trip.name, link: PlateRoutes.show.path(trip.id),
                    when: trip.endedAt.map { "ended \(day($0, zone: zone))" } ?? "started \(day(trip.createdAt, zone: zone))")
            })
        return PlateRoutes.page(context, PlateTripPage.render(context: frame, model: model))
    }

    /// "3.5" a day, or "3" when whole.
    static func pace(_ perDay: Double) -> String {
        let tenths = Int((perDay * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)"
    }

    static func endPost(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        guard game.role.canManageTrips else { throw HTTPError.forbidden("Only the host can end the trip.") }
        if let page = context.unconfirmed(endConfirmation(game.name), cancel: PlateRoutes.show.path(game.id)) { return page }
        let app = context.app
        let now = app.now
        try context.write(PlateGameScope.self, parameter: "game") { tx, game in
            guard game.role.canManageTrips else { throw HTTPError.forbidden("Only the host can end the trip.") }
            if try PlateTripStore.end(tx, gameID: game.id, now: now) {
                try PlateRoutes.publishAfterCommit(tx, app, gameID: game.id)
            }
            try context.flash(tx, "Trip ended. Its board stays as it was.")
        }
        return .redirect(to: PlateRoutes.show.path(game.id))
    }

    /// Takes an ended trip up again where it stopped. Not once the next trip
    /// has started: two trips of one chain under way at once would split
    /// the players' spots between them.
    static func resumePost(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        guard game.role.canManageTrips else { throw HTTPError.forbidden("Only the host can resume the trip.") }
        let app = context.app
        try context.write(PlateGameScope.self, parameter: "game") { tx, game in
            guard game.role.canManageTrips else { throw HTTPError.forbidden("Only the host can resume the trip.") }
            guard try PlateTripStore.next(tx, gameID: game.id) == nil else {
                throw HTTPError(.conflict, "The next trip has started already, so this one stays ended. Carry on in the next one.")
            }
            if try PlateTripStore.resume(tx, gameID: game.id) {
                try PlateRoutes.publishAfterCommit(tx, app, gameID: game.id)
            }
            try context.flash(tx, "Trip resumed. Spot away.")
        }
        return .redirect(to: PlateRoutes.show.path(game.id))
    }

    /// Ends this trip if it is under way and starts the next with the same
    /// players; a second tap finds the trip the first one started.
    static func nextPost(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        guard game.role.canManageTrips else { throw HTTPError.forbidden("Only the host can start the next trip.") }
        let app = context.app
        let now = app.now
        let nextID = try context.write(PlateGameScope.self, parameter: "game") { tx, game -> Int64 in
            guard game.role.canManageTrips else { throw HTTPError.forbidden("Only the host can start the next trip.") }
            if let existing = try PlateTripStore.next(tx, gameID: game.id) { return existing }
            _ = try PlateTripStore.end(tx, gameID: game.id, now: now)
            let id = try PlateTripStore.startNext(tx, after: game.id, now: now)
            _ = try app.invites.issue(tx, kind: PlateRoutes.inviteKind, targetID: id, createdBy: game.userID, now: now)
            let members = try PlateStore.playerIDs(tx, gameID: game.id)
            try context.flash(tx, "New trip started with the same players.")
            tx.afterCommit {
                PlateRoutes.publish(app, gameID: game.id, members: members)
                PlateRoutes.publish(app, gameID: id, members: [])
            }
            return id
        }
        return .redirect(to: PlateRoutes.show.path(nextID))
    }
}
