import KithHTTP
import KithStorage
import KithTemplates

/// Plate games: create, join through the shared invite flow, spot plates on
/// the map or by name, undo, watch the board fill live, and (for the host)
/// rename, switch mode, change the rules, rotate the code and remove players.
/// Every route under `/games/:game` goes through `PlateGameScope`, so
/// outsiders get 404.
enum PlateRoutes {
    static let dashboardFragment = Route(.get, "/games")
    static let new = Route(.get, "/games/new")
    static let create = Route(.post, "/games")
    static let show = Route(.get, "/games/:game")
    static let boardFragment = Route(.get, "/games/:game/board")
    static let feedFragment = Route(.get, "/games/:game/feed")
    static let spotList = Route(.get, "/games/:game/spot")
    static let listFragment = Route(.get, "/games/:game/spot/list")
    static let state = Route(.get, "/games/:game/states/:state")
    static let spot = Route(.post, "/games/:game/spots")
    static let undo = Route(.post, "/games/:game/spots/:spot/undo")
    static let players = Route(.get, "/games/:game/players")
    static let settings = Route(.post, "/games/:game/settings")
    static let mode = Route(.post, "/games/:game/mode")
    static let rotate = Route(.post, "/games/:game/code")
    static let remove = Route(.post, "/games/:game/players/:player/remove")
    static let leaveForm = Route(.get, "/games/:game/leave")
    static let leave = Route(.post, "/games/:game/leave")

    static let inviteKind = "game"
    static let notificationKind = "plate.spot"
    /// Spots the feed shows.
    static let feedSize = 20

    /// A game's live topic: its board and feed.
    static func topic(_ gameID: Int64) -> String { LiveTopics.name("game", gameID) }
    /// Digests and mutes are per game.
    static func notificationScope(_ gameID: Int64) -> String { "game:\(gameID)" }
    /// A person's plate-games list on the dashboard.
    static func listTopic(_ userID: Int64) -> String { LiveTopics.name("plates", userID) }

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(dashboardFragment) { context in
            let user = try context.requireUser()
            return context.app.page(try dashboardSection(context.app, user: user))
        }
        Endpoint(new) { context in
            _ = try context.requireUser()
            return page(context, PlateNewPage.render(context: frame(context), form: FormState(), action: create.path()))
        }
        Endpoint(create) { context in try createGame(context) }
        Endpoint(show) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            let frame = frame(context, topics: [game.topic], flash: flash(context.request.query))
            return page(context, PlateBoardPage.render(context: frame, model: try boardModel(context, game)))
        }
        Endpoint(boardFragment) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            return page(context, PlateBoardPage.board(model: try boardModel(context, game), csrfToken: context.csrfToken))
        }
        Endpoint(feedFragment) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            return page(context, PlateBoardPage.feed(model: try boardModel(context, game), csrfToken: context.csrfToken))
        }
        Endpoint(spotList) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            let frame = frame(context, topics: [game.topic], flash: flash(context.request.query))
            let items = try listItems(context, game)
            return page(
                context,
                PlateSpotListPage.render(
                    context: frame, gameName: game.name, board: show.path(game.id), action: spot.path(game.id),
                    fragment: listFragment.path(game.id), items: items))
        }
        Endpoint(listFragment) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            return page(
                context,
                PlateSpotListPage.list(
                    csrfToken: context.csrfToken, action: spot.path(game.id), fragment: listFragment.path(game.id),
                    items: try listItems(context, game)))
        }
        Endpoint(state) { context in try statePage(context) }
        Endpoint(spot) { context in try spotPost(context) }
        Endpoint(undo) { context in try undoPost(context) }
        Endpoint(players) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            return try playersPage(context, game, form: settingsForm(game))
        }
        Endpoint(settings) { context in try settingsPost(context) }
        Endpoint(mode) { context in try modePost(context) }
        Endpoint(rotate) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            guard game.role.canRotateCode else { throw HTTPError.forbidden("Only the host can change the invite code.") }
            let app = context.app
            let now = app.now
            try context.write(PlateGameScope.self, parameter: "game") { tx, game in
                guard game.role.canRotateCode else { throw HTTPError.forbidden("Only the host can change the invite code.") }
                _ = try app.invites.rotate(tx, kind: inviteKind, targetID: game.id, by: game.userID, now: now)
            }
            return .redirect(to: players.path(game.id))
        }
        Endpoint(remove) { context in try removePost(context) }
        Endpoint(leaveForm) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            let count = try context.app.database.read { try PlateStore.playerIDs($0, gameID: game.id).count }
            return page(
                context,
                PlateLeavePage.render(
                    context: frame(context), gameName: game.name, action: leave.path(game.id), board: show.path(game.id), lastPlayer: count == 1))
        }
        Endpoint(leave) { context in
            _ = try context.write(PlateGameScope.self, parameter: "game") { tx, game in
                try removePlayer(tx, context.app, game: game.id, userID: game.userID)
            }
            return .redirect(to: "/")
        }
    }

    /// The game's place in the shared machinery: live topics, the invite
    /// kind, the notification wording, the dashboard and account deletion.

    // MARK: Pages

    /// The page frame, taken before the page reads its data (the live cursor).
    static func frame(_ context: RequestContext, topics: [String] = [], flash: [Flash] = []) -> PageContext {
        var frame = context.pageContext(flash: flash, topics: topics)
        frame.stylesheets = ["css/plates.css"]
        frame.scripts = ["js/plates.js"]
        return frame
    }

    static func page(_ context: RequestContext, _ html: HTML, status: HTTPStatus = .ok) -> Response {
        context.app.page(html, status: status)
    }

    static func flash(_ query: FormData) -> [Flash] {
        if let code = query["spotted"], let shape = USMapData.shape(code: code) { return [Flash(.notice, "Spotted \(shape.name)!")] }
        if let code = query["undone"], let shape = USMapData.shape(code: code) { return [Flash(.notice, "Took back your \(shape.name) spot.")] }
        if query["saved"] != nil { return [Flash(.notice, "Saved.")] }
        return []
    }

    static func dashboardSection(_ app: KithApp, user: User) throws -> HTML {
        let games = try app.database.read { try PlateStore.games($0, userID: user.id) }
        return PlateDashboardSection.render(
            games: games.map {
                PlateDashboardSection.Game(
                    name: $0.name, link: show.path($0.id), mode: $0.mode.rawValue, progress: $0.progress, target: $0.target, players: $0.players)
            }, newGame: new.path(), fragment: dashboardFragment.path())
    }

    /// Everything the board page shows, read in one transaction and drawn
    /// the way the game's mode says. The spots are the same either way.
    static func boardModel(_ context: RequestContext, _ game: PlateGameScope) throws -> PlateBoardPage.Model {
        let now = context.app.now
        let data = try context.app.database.read { db in
            (
                players: try PlateStore.players(db, gameID: game.id), spots: try PlateStore.spots(db, gameID: game.id),
                firstSpots: game.mode == .collaborative ? try PlateStore.firstSpots(db, gameID: game.id) : [],
                groupProgress: try PlateStore.groupProgress(db, gameID: game.id),
                recent: try PlateStore.recentSpots(db, gameID: game.id, limit: feedSize),
                regions: try PlateStore.regions(db, ruleset: game.ruleset)
            )
        }
        let target = data.regions.count
        let viewer = game.userID
        let people = data.players.map {
            PlateBoardPage.Player(name: $0.name, colour: $0.colour, score: $0.score, isViewer: $0.userID == viewer, isHost: $0.role == .host)
        }
        let boards = PlateBoards.draw(
            mode: game.mode, viewerID: viewer, spots: data.spots, firstSpots: data.firstSpots, players: data.players)
        let progress: Int
        let finishers: [String]
        switch game.mode {
        case .collaborative:
            progress = data.groupProgress
            finishers = target > 0 && progress >= target ? ["Everyone"] : []
        case .competitive:
            progress = data.players.first { $0.userID == viewer }?.score ?? 0
            finishers = data.players.filter { target > 0 && $0.score >= target }.map { $0.userID == viewer ? "You" : $0.name }
        }
        // Other players' boards in leaderboard order.
        let others = zip(data.players, people).compactMap { stored, player -> PlateBoardPage.Board? in
            guard let statuses = boards.others[stored.userID] else { return nil }
            return PlateBoardPage.Board(player: player, statuses: statuses)
        }
        let feed = data.recent.map { spot in
            PlateBoardPage.FeedItem(
                regionName: spot.regionName, regionCode: spot.region, playerName: spot.userID == viewer ? "you" : spot.playerName,
                relativeTime: TimeText.relative(spot.spottedAt, now: now), machineTime: TimeText.utc(spot.spottedAt, machine: true),
                undoAction: spot.userID == viewer ? undo.path(game.id, spot.id) : nil)
        }
        return PlateBoardPage.Model(
            name: game.name, mode: game.mode.rawValue, isHost: game.role == .host, target: target, progress: progress, statuses: boards.mine,
            playable: Set(data.regions.map(\.code)), players: people, otherBoards: others, feed: feed, finishers: finishers,
            timeZone: context.user?.timeZone ?? TimeZones.serverDefault,
            paths: PlateBoardPage.Paths(
                board: show.path(game.id), boardFragment: boardFragment.path(game.id), feedFragment: feedFragment.path(game.id),
                spotList: spotList.path(game.id),
                states: Dictionary(uniqueKeysWithValues: data.regions.map { ($0.code, state.path(game.id, $0.code)) }),
                spot: spot.path(game.id), mode: mode.path(game.id), players: players.path(game.id)))
    }

    static func listItems(_ context: RequestContext, _ game: PlateGameScope) throws -> [PlateListItem] {
        let (regions, spots, firstSpots) = try context.app.database.read { db in
            (
                try PlateStore.regions(db, ruleset: game.ruleset), try PlateStore.spots(db, gameID: game.id),
                game.mode == .collaborative ? try PlateStore.firstSpots(db, gameID: game.id) : []
            )
        }
        let statuses = PlateBoards.draw(mode: game.mode, viewerID: game.userID, spots: spots, firstSpots: firstSpots, players: []).mine
        return regions.map { PlateListItem(code: $0.code, name: $0.name, status: statuses[$0.code] ?? .unspotted) }
    }

    static func statePage(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        let code = try context.request.parameter("state", as: String.self)
        let frame = frame(context, topics: [game.topic])
        let found = try context.app.database.read { db -> (PlateRegion, [PlateSpot])? in
            guard let region = try PlateStore.region(db, code: code, ruleset: game.ruleset) else { return nil }
            return (region, try PlateStore.spots(db, gameID: game.id, region: code))
        }
        guard let (region, spots) = found else { throw HTTPError.notFound("That isn't a state this game counts.") }
        let mine = spots.first { $0.userID == game.userID }
        let model = PlateStatePage.Model(
            gameName: game.name, regionName: region.name, regionCode: region.code, board: show.path(game.id), spotAction: spot.path(game.id),
            undoAction: mine.map { undo.path(game.id, $0.id) }, spotters: spots.map { $0.userID == game.userID ? "you" : $0.playerName })
        return page(context, PlateStatePage.render(context: frame, model: model))
    }

    static func playersPage(_ context: RequestContext, _ game: PlateGameScope, form: FormState, status: HTTPStatus = .ok) throws -> Response {
        let frame = frame(context, flash: flash(context.request.query))
        let (list, code) = try context.app.database.read { db in
            (try PlateStore.players(db, gameID: game.id), try context.app.invites.code(db, kind: inviteKind, targetID: game.id))
        }
        let link = code.map { context.app.baseURL + InviteRoutes.preview.path($0) }
        let roster = list.sorted { ($0.joinedAt, $0.userID) < ($1.joinedAt, $1.userID) }.map { player in
            PlatePlayersPage.Player(
                name: player.name, colour: player.colour, isHost: player.role == .host, isViewer: player.userID == game.userID,
                removeAction: game.role.canRemovePlayers && player.userID != game.userID ? remove.path(game.id, player.userID) : nil)
        }
        let model = PlatePlayersPage.Model(
            gameName: game.name, code: code, link: link, qrCode: link.map { QRCode.svg(for: $0, label: "QR code to join \(game.name)") } ?? .empty,
            players: roster, isHost: game.role == .host, board: show.path(game.id), settingsAction: settings.path(game.id),
            rotateAction: rotate.path(game.id), leave: leaveForm.path(game.id), form: form)
        return page(context, PlatePlayersPage.render(context: frame, model: model), status: status)
    }

    static func settingsForm(_ game: PlateGameScope) -> FormState {
        FormState(values: ["name": game.name, "mode": game.mode.rawValue, "dc": game.ruleset == PlateRuleset.statesAndDC ? "on" : ""])
    }

    // MARK: Actions

    /// A game's name, mode and rules from a form, or the form with errors.
    struct GameSettings {
        var name: String
        var mode: PlateMode
        var ruleset: String
    }

    static func validate(_ form: FormData) -> (GameSettings?, FormState) {
        var reader = FormReader(form)
        let name = reader.line("name", label: "the game name", max: PlateStore.nameLimit, required: true)
        let mode = reader.choice("mode", PlateMode.self, message: "Choose how you play: together or a race.")
        var state = reader.state
        state.values["dc"] = form["dc"] == "on" ? "on" : ""
        guard state.isValid, let name, let mode else { return (nil, state) }
        let ruleset = form["dc"] == "on" ? PlateRuleset.statesAndDC : PlateRuleset.states
        return (GameSettings(name: name, mode: mode, ruleset: ruleset), state)
    }

    static func trimmed(_ text: String) -> String {
        var result = Substring(text)
        while let first = result.first, first.isWhitespace { result = result.dropFirst() }
        while let last = result.last, last.isWhitespace { result = result.dropLast() }
        return String(result)
    }

    static func createGame(_ context: RequestContext) throws -> Response {
        let user = try context.requireUser()
        let (settings, state) = validate(context.request.form)
        guard let settings else {
            return page(
                context, PlateNewPage.render(context: frame(context), form: state, action: create.path()), status: .unprocessableContent)
        }
        let app = context.app
        let now = app.now
        let id = try app.database.write { tx in
            let id = try PlateStore.create(tx, name: settings.name, mode: settings.mode, ruleset: settings.ruleset, hostID: user.id, now: now)
            _ = try app.invites.issue(tx, kind: inviteKind, targetID: id, createdBy: user.id, now: now)
            tx.afterCommit { publish(app, gameID: id, members: [user.id]) }
            return id
        }
        return .redirect(to: show.path(id))
    }

    static func settingsPost(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        guard game.role.canRename, game.role.canSwitchMode, game.role.canChangeRules else {
            throw HTTPError.forbidden("Only the host can change the game's settings.")
        }
        let (settings, state) = validate(context.request.form)
        guard let settings else { return try playersPage(context, game, form: state, status: .unprocessableContent) }
        let app = context.app
        try context.write(PlateGameScope.self, parameter: "game") { tx, game in
            guard game.role.canRename, game.role.canSwitchMode, game.role.canChangeRules else {
                throw HTTPError.forbidden("Only the host can change the game's settings.")
            }
            try PlateStore.update(tx, gameID: game.id, name: settings.name, ruleset: settings.ruleset)
            try PlateStore.setMode(tx, gameID: game.id, mode: settings.mode)
            let members = try PlateStore.playerIDs(tx, gameID: game.id)
            tx.afterCommit { publish(app, gameID: game.id, members: members) }
        }
        return .redirect(to: players.path(game.id) + "?saved=1")
    }

    /// The host's quick switch on the board: only the mode changes, never a spot.
    static func modePost(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        guard game.role.canSwitchMode else { throw HTTPError.forbidden("Only the host can switch how the game is played.") }
        guard let mode = PlateMode(rawValue: context.request.form["mode"] ?? "") else {
            throw HTTPError(.unprocessableContent, "Choose competitive or collaborative.")
        }
        let app = context.app
        try context.write(PlateGameScope.self, parameter: "game") { tx, game in
            guard game.role.canSwitchMode else { throw HTTPError.forbidden("Only the host can switch how the game is played.") }
            try PlateStore.setMode(tx, gameID: game.id, mode: mode)
            let members = try PlateStore.playerIDs(tx, gameID: game.id)
            tx.afterCommit { publish(app, gameID: game.id, members: members) }
        }
        return .redirect(to: show.path(game.id))
    }

    static func spotPost(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        let user = try context.requireUser()
        let code = trimmed(context.request.form["state"] ?? "").uppercased()
        let app = context.app
        let now = app.now
        let board = show.path(game.id)
        let clientID = try ClientActions.id(in: context.request.form)
        let spotted = try context.write(PlateGameScope.self, parameter: "game") { tx, game -> Bool in
            guard let region = try PlateStore.region(tx, code: code, ruleset: game.ruleset) else { return false }
            // A spot sent again (an offline queue's retry) was made the first
            // time; it is not made again, even if it was undone in between.
            guard try ClientActions.claim(tx, id: clientID, userID: user.id, kind: "plate.spot", now: now) else { return true }
            // Spotting twice is harmless: nothing new, nobody told again.
            if try PlateStore.spot(tx, gameID: game.id, userID: user.id, region: region.code, now: now) {
                let members = try PlateStore.playerIDs(tx, gameID: game.id)
                try app.notifications.record(
                    Notifications.Event(
                        kind: notificationKind, scope: game.notificationScope, scopeTitle: game.name, actorID: user.id,
                        actorName: user.displayName, subject: region.name, link: board, recipients: members),
                    in: tx)
                tx.afterCommit { publish(app, gameID: game.id, members: members) }
            }
            return true
        }
        guard spotted else { throw HTTPError(.unprocessableContent, "Choose one of the states this game counts.") }
        let back = context.request.form["from"] == "list" ? spotList.path(game.id) : board
        return .redirect(to: back + "?spotted=" + code)
    }

    static func undoPost(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        let spotID = try context.request.parameter("spot", as: Int64.self)
        let app = context.app
        let region = try context.write(PlateGameScope.self, parameter: "game") { tx, game -> String in
            guard let found = try PlateStore.spot(tx, id: spotID, gameID: game.id) else { throw HTTPError.notFound("That spot isn't in this game.") }
            guard found.userID == game.userID, try PlateStore.undo(tx, spotID: spotID, gameID: game.id, userID: game.userID) else {
                throw HTTPError.forbidden("You can only undo your own spots.")
            }
            try app.notifications.withdraw(
                kind: notificationKind, scope: game.notificationScope, actorID: game.userID, subject: found.regionName, in: tx)
            let members = try PlateStore.playerIDs(tx, gameID: game.id)
            tx.afterCommit { publish(app, gameID: game.id, members: members) }
            return found.region
        }
        return .redirect(to: show.path(game.id) + "?undone=" + region)
    }

    static func removePost(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        guard game.role.canRemovePlayers else { throw HTTPError.forbidden("Only the host can remove players.") }
        let playerID = try context.request.parameter("player", as: Int64.self)
        guard playerID != game.userID else {
            throw HTTPError(.unprocessableContent, "To step away from your own game, leave it instead.")
        }
        let removed = try context.write(PlateGameScope.self, parameter: "game") { tx, game in
            guard game.role.canRemovePlayers else { throw HTTPError.forbidden("Only the host can remove players.") }
            return try removePlayer(tx, context.app, game: game.id, userID: playerID)
        }
        guard removed else { throw HTTPError.notFound("That person isn't in this game.") }
        return .redirect(to: players.path(game.id))
    }

    /// Takes someone out of a game and tells everyone still in it, and them;
    /// their open pages of the game are revoked.
    @discardableResult
    static func removePlayer(_ tx: Transaction, _ app: KithApp, game: Int64, userID: Int64) throws -> Bool {
        let before = try PlateStore.playerIDs(tx, gameID: game)
        guard try leaveGame(tx, gameID: game, userID: userID, now: app.now, notifications: app.notifications, invites: app.invites) else { return false }
        tx.afterCommit { publish(app, gameID: game, members: before) }
        app.revoke([userID], topic: topic(game), after: tx)
        return true
    }

    /// A player leaves (or is removed, or deleted): their spots go, the host
    /// role passes on, and a game nobody plays any more is deleted with its
    /// invite code retired.
    static func leaveGame(
        _ tx: Transaction, gameID: Int64, userID: Int64, now: Int64, notifications: Notifications, invites: InviteCodes
    ) throws -> Bool {
        guard try PlateStore.removePlayer(tx, gameID: gameID, userID: userID) else { return false }
        try notifications.discardPending(scope: notificationScope(gameID), for: userID, in: tx)
        if try PlateStore.name(tx, gameID: gameID) == nil {
            try invites.retire(tx, kind: inviteKind, targetID: gameID, now: now)
        }
        return true
    }

    /// After a commit: the game's open boards and feeds refetch, and so do
    /// the dashboards of everyone in it.
    static func publish(_ app: KithApp, gameID: Int64, members: [Int64]) {
        app.live.publish(invalidations(gameID: gameID, members: members))
    }

    /// What a change to a game invalidates: its own pages, and the
    /// dashboards of `members`.
    static func invalidations(gameID: Int64, members: [Int64]) -> [LiveInvalidation] {
        [LiveInvalidation(topic: topic(gameID), fragments: [.plateBoard, .plateFeed, .plateList])]
            + members.map { LiveInvalidation(topic: listTopic($0), fragments: [.plateGames]) }
    }
}
