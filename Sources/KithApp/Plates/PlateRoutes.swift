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
    /// Puts back a spot taken back or a player removed, from the undo journal.
    static let restore = Route(.post, "/games/:game/restore/:entry")

    static let inviteKind = "game"
    static let notificationKind = "plate.spot"
    /// Undo journal kinds: a spot taken back, a player removed.
    static let spotUndoKind = "plate.spot"
    static let playerUndoKind = "plate.player"
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
            return page(context, PlateNewPage.render(context: frame(context), form: FormState(onceToken: context.onceToken()), action: create.path()))
        }
        Endpoint(create) { context in try createGame(context) }
        Endpoint(show) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            var frame = frame(context, topics: [game.topic])
            frame.head = PlateShareRoutes.previewTags(context, game: game)
            let model = try boardModel(context, game, missing: try PlateMissingView.whose(context))
            return page(context, PlateBoardPage.render(context: frame, model: model))
        }
        Endpoint(boardFragment) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            let model = try boardModel(context, game, missing: try PlateMissingView.whose(context))
            return page(context, PlateBoardPage.board(model: model, csrfToken: context.csrfToken))
        }
        Endpoint(feedFragment) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            return page(context, PlateBoardPage.feed(model: try boardModel(context, game), csrfToken: context.csrfToken))
        }
        Endpoint(spotList) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            let frame = frame(context, topics: [game.topic])
            let whose = try PlateMissingView.whose(context)
            let (items, missing) = try listItems(context, game, missing: whose)
            return page(
                context,
                PlateSpotListPage.render(
                    context: frame, gameName: game.name, board: show.path(game.id), action: spot.path(game.id),
                    fragment: PlateMissingView.path(listFragment.path(game.id), whose), items: items, missing: missing))
        }
        Endpoint(listFragment) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            let whose = try PlateMissingView.whose(context)
            return page(
                context,
                PlateSpotListPage.list(
                    csrfToken: context.csrfToken, action: spot.path(game.id), fragment: PlateMissingView.path(listFragment.path(game.id), whose),
                    items: try listItems(context, game, missing: whose).items))
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
            let code = try context.app.database.read { try context.app.invites.code($0, kind: inviteKind, targetID: game.id) }
            if let page = context.unconfirmed(rotateConfirmation(code: code), cancel: players.path(game.id)) { return page }
            let app = context.app
            let now = app.now
            try context.write(PlateGameScope.self, parameter: "game") { tx, game in
                guard game.role.canRotateCode else { throw HTTPError.forbidden("Only the host can change the invite code.") }
                _ = try app.invites.rotate(tx, kind: inviteKind, targetID: game.id, by: game.userID, now: now)
                try context.flash(tx, "New invite code ready. The old one no longer works.")
            }
            return .redirect(to: players.path(game.id))
        }
        Endpoint(remove) { context in try removePost(context) }
        Endpoint(restore) { context in try restorePost(context) }
        Endpoint(leaveForm) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            let confirmation = try leaveConfirmation(context.app, game: game)
            return page(
                context, Confirm.page(context: frame(context), confirmation, action: leave.path(game.id), fields: [], cancel: show.path(game.id)))
        }
        Endpoint(leave) { context in
            let game = try context.load(PlateGameScope.self, parameter: "game")
            if let page = context.unconfirmed(try leaveConfirmation(context.app, game: game), cancel: show.path(game.id)) { return page }
            _ = try context.write(PlateGameScope.self, parameter: "game") { tx, game in
                try removePlayer(tx, context.app, game: game.id, userID: game.userID)
                try context.flash(tx, "You left \(game.name).")
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
        frame.stylesheets = ["css/plates.css", "css/plate-map.css"]
        frame.scripts = ["js/plates.js"]
        return frame
    }

    static func page(_ context: RequestContext, _ html: HTML, status: HTTPStatus = .ok) -> Response {
        context.app.page(html, status: status)
    }

    static func dashboardSection(_ app: KithApp, user: User) throws -> HTML {
        let games = try app.database.read { try PlateStore.games($0, userID: user.id) }
        return PlateDashboardSection.render(
            games: games.map {
                var game = PlateDashboardSection.Game(
                    name: $0.name, link: show.path($0.id), mode: $0.mode.rawValue, progress: $0.progress, target: $0.target, players: $0.players)
                game.hasEnded = $0.endedAt != nil
                return game
            }, newGame: new.path(), fragment: dashboardFragment.path())
    }

    /// Everything the board page shows, read in one transaction and drawn
    /// the way the game's mode says. The spots are the same either way.
    static func boardModel(_ context: RequestContext, _ game: PlateGameScope, missing whose: PlateMissing.Whose? = nil) throws -> PlateBoardPage.Model {
        let now = context.app.now
        let viewer = game.userID
        let data = try context.app.database.read { db in
            (
                players: try PlateStore.players(db, gameID: game.id), spots: try PlateStore.spots(db, gameID: game.id),
                firstSpots: game.mode == .collaborative ? try PlateStore.firstSpots(db, gameID: game.id) : [],
                groupProgress: try PlateStore.groupProgress(db, gameID: game.id),
                groupPoints: game.scoring == .rarity ? try PlateStore.groupPoints(db, gameID: game.id) : nil,
                recent: try PlateStore.recentSpots(db, gameID: game.id, limit: feedSize),
                regions: try PlateStore.regions(db, ruleset: game.ruleset),
                undo: try UndoJournal.notice(db, userID: viewer, kinds: [spotUndoKind], targetID: game.id, now: now) { restore.path(game.id, $0) },
                trip: try PlateTripRoutes.controls(db, game: game, zone: context.user?.timeZone ?? TimeZones.serverDefault),
                celebrated: try PlateCelebration.seen(db, gameID: game.id, userID: viewer)
            )
        }
        let target = data.regions.count
        let playable = Set(data.regions.map(\.code))
        let people = data.players.map {
            var player = PlateBoardPage.Player(name: $0.name, colour: $0.colour, score: $0.score, isViewer: $0.userID == viewer, isHost: $0.role == .host)
            if game.scoring == .rarity { player.points = $0.points }
            return player
        }
        var boards = PlateBoards.draw(
            mode: game.mode, viewerID: viewer, spots: data.spots, firstSpots: data.firstSpots, players: data.players)
        if whose == .everyone, game.mode == .competitive {
            // What nobody has yet is read against everyone's spots, not the viewer's board.
            boards.mine = PlateBoards.draw(
                mode: .collaborative, viewerID: viewer, spots: data.spots, firstSpots: PlateMissingView.firstSpots(data.spots), players: []
            ).mine
        }
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
        // A collaborative feed names each state once, for whoever spotted it
        // first; a spot the rules no longer count (DC turned off) is left out.
        let recent = game.mode == .collaborative ? Array(data.firstSpots.reversed()) : data.recent
        let feed = recent.filter { playable.contains($0.region) }.prefix(feedSize).map { spot in
            var item = PlateBoardPage.FeedItem(
                regionName: spot.regionName, regionCode: spot.region, playerName: spot.userID == viewer ? "you" : spot.playerName,
                relativeTime: TimeText.relative(spot.spottedAt, now: now), machineTime: TimeText.utc(spot.spottedAt, machine: true),
                undoAction: spot.userID == viewer ? undo.path(game.id, spot.id) : nil)
            if spot.userID == viewer {
                item.undoConfirmation = takeBackConfirmation(spot.regionName, others: data.spots.filter { $0.region == spot.region }.count - 1)
            }
            item.note = spot.note
            item.spottedAt = spot.spottedAt
            return item
        }
        var model = PlateBoardPage.Model(
            name: game.name, mode: game.mode.rawValue, isHost: game.role == .host, target: target, progress: progress, statuses: boards.mine,
            playable: playable, players: people, otherBoards: others, feed: Array(feed), finishers: finishers,
            timeZone: context.user?.timeZone ?? TimeZones.serverDefault,
            paths: PlateBoardPage.Paths(
                board: show.path(game.id), boardFragment: boardFragment.path(game.id), feedFragment: feedFragment.path(game.id),
                spotList: spotList.path(game.id),
                states: Dictionary(uniqueKeysWithValues: data.regions.map { ($0.code, state.path(game.id, $0.code)) }),
                spot: spot.path(game.id), mode: mode.path(game.id), players: players.path(game.id)))
        model.undo = data.undo
        let assets = context.app.assets
        model.assetURL = { assets.url($0) }
        if game.mode == .collaborative { model.groupPoints = data.groupPoints }
        model.trip = data.trip
        model.paths.image = PlateShareRoutes.image.path(game.id)
        model.paths.csv = PlateShareRoutes.csv.path(game.id)
        model.celebrationKey = "plate-\(game.id)-\(viewer)"
        model.paths.celebrated = data.celebrated ? nil : PlateCelebration.seenPost.path(game.id)
        model.missing = PlateMissingView.view(whose, base: show.path(game.id), regions: data.regions, spots: data.spots, viewerID: viewer)
        model.paths.boardFragment = PlateMissingView.path(model.paths.boardFragment, whose)
        return model
    }

    static func listItems(
        _ context: RequestContext, _ game: PlateGameScope, missing whose: PlateMissing.Whose?
    ) throws -> (items: [PlateListItem], missing: PlateMissing) {
        let (regions, spots, firstSpots) = try context.app.database.read { db in
            (
                try PlateStore.regions(db, ruleset: game.ruleset), try PlateStore.spots(db, gameID: game.id),
                game.mode == .collaborative ? try PlateStore.firstSpots(db, gameID: game.id) : []
            )
        }
        let statuses = PlateBoards.draw(mode: game.mode, viewerID: game.userID, spots: spots, firstSpots: firstSpots, players: []).mine
        let shown = whose.map { PlateMissingView.regions(regions, spots: spots, viewerID: game.userID, whose: $0) } ?? regions
        let missing = PlateMissingView.view(whose, base: spotList.path(game.id), regions: regions, spots: spots, viewerID: game.userID)
        return (shown.map { PlateListItem(code: $0.code, name: $0.name, status: statuses[$0.code] ?? .unspotted) }, missing)
    }

    static func statePage(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        // Postal codes are capitals; a typed `/states/tx` means the same state.
        let code = try context.request.parameter("state", as: String.self).uppercased()
        let frame = frame(context, topics: [game.topic])
        let found = try context.app.database.read { db -> (PlateRegion, [PlateSpot])? in
            guard let region = try PlateStore.region(db, code: code, ruleset: game.ruleset) else { return nil }
            return (region, try PlateStore.spots(db, gameID: game.id, region: code))
        }
        guard let (region, spots) = found else { throw HTTPError.notFound("That isn't a state this game counts.") }
        let mine = spots.first { $0.userID == game.userID }
        var model = PlateStatePage.Model(
            gameName: game.name, regionName: region.name, regionCode: region.code, board: show.path(game.id), spotAction: spot.path(game.id),
            undoAction: mine.map { undo.path(game.id, $0.id) },
            spotters: spots.map { spot in
                let who = spot.userID == game.userID ? "you" : spot.playerName
                return spot.note.map { "\(who) (\($0))" } ?? who
            })
        model.undoConfirmation = takeBackConfirmation(region.name, others: spots.count - 1)
        if game.mode == .collaborative, mine == nil, let first = spots.first { model.firstSpotter = first.playerName }
        return page(context, PlateStatePage.render(context: frame, model: model))
    }

    static func playersPage(_ context: RequestContext, _ game: PlateGameScope, form: FormState, status: HTTPStatus = .ok) throws -> Response {
        let frame = frame(context)
        let (list, code, spotCounts, undoNotice) = try context.app.database.read { db in
            (
                try PlateStore.players(db, gameID: game.id), try context.app.invites.code(db, kind: inviteKind, targetID: game.id),
                try PlateStore.spotCounts(db, gameID: game.id),
                try UndoJournal.notice(db, userID: game.userID, kinds: [playerUndoKind], targetID: game.id, now: context.app.now) {
                    restore.path(game.id, $0)
                }
            )
        }
        let link = code.map { context.app.baseURL + InviteRoutes.preview.path($0) }
        let roster = list.sorted { ($0.joinedAt, $0.userID) < ($1.joinedAt, $1.userID) }.map { player in
            PlatePlayersPage.Player(
                name: player.name, colour: player.colour, isHost: player.role == .host, isViewer: player.userID == game.userID,
                removeAction: game.role.canRemovePlayers && player.userID != game.userID ? remove.path(game.id, player.userID) : nil,
                removeConfirmation: removeConfirmation(player.name, spots: spotCounts[player.userID] ?? 0))
        }
        var model = PlatePlayersPage.Model(
            gameName: game.name, code: code, link: link, qrCode: link.map { QRCode.svg(for: $0, label: "QR code to join \(game.name)") } ?? .empty,
            players: roster, isHost: game.role == .host, board: show.path(game.id), settingsAction: settings.path(game.id),
            rotateAction: rotate.path(game.id), leave: leaveForm.path(game.id), form: form)
        model.rotateConfirmation = rotateConfirmation(code: code)
        model.undo = undoNotice
        return page(context, PlatePlayersPage.render(context: frame, model: model), status: status)
    }

    static func settingsForm(_ game: PlateGameScope) -> FormState {
        FormState(values: [
            "name": game.name, "mode": game.mode.rawValue, "dc": PlateRuleset.countsDC(game.ruleset) ? "on" : "",
            "countries": PlateRuleset.countries(game.ruleset).rawValue, "scoring": game.scoring.rawValue,
        ])
    }

    // MARK: Actions

    /// A game's name, mode and rules from a form, or the form with errors.
    struct GameSettings {
        var name: String
        var mode: PlateMode
        var ruleset: String
        var scoring: PlateScoring
    }

    static func validate(_ form: FormData) -> (GameSettings?, FormState) {
        var reader = FormReader(form)
        let name = reader.line("name", label: "the game name", max: PlateStore.nameLimit, required: true)
        let mode = reader.choice("mode", PlateMode.self, message: "Choose how you play: together or a race.")
        // Forms from before these two choices existed leave them out: the US, a point a region.
        let countries =
            (form["countries"] ?? "").isEmpty
            ? PlateCountries.us : reader.choice("countries", PlateCountries.self, message: "Choose whose plates count: the US; the US and Canada; or the US, Canada and Mexico.")
        let scoring =
            (form["scoring"] ?? "").isEmpty
            ? PlateScoring.count : reader.choice("scoring", PlateScoring.self, message: "Choose how spots score: a point each, or rare plates worth more.")
        var state = reader.state
        state.values["dc"] = form["dc"] == "on" ? "on" : ""
        state.values["countries"] = state.values["countries"] ?? PlateCountries.us.rawValue
        state.values["scoring"] = state.values["scoring"] ?? PlateScoring.count.rawValue
        guard state.isValid, let name, let mode, let countries, let scoring else { return (nil, state) }
        let ruleset = PlateRuleset.name(countries: countries, dc: form["dc"] == "on")
        return (GameSettings(name: name, mode: mode, ruleset: ruleset, scoring: scoring), state)
    }

    static func trimmed(_ text: String) -> String {
        var result = Substring(text)
        while let first = result.first, first.isWhitespace { result = result.dropFirst() }
        while let last = result.last, last.isWhitespace { result = result.dropLast() }
        return String(result)
    }

    static func createGame(_ context: RequestContext) throws -> Response {
        let user = try context.requireUser()
        let once = try context.onceForm()
        var (settings, state) = validate(context.request.form)
        guard let settings else {
            state.onceToken = context.onceToken()
            return page(
                context, PlateNewPage.render(context: frame(context), form: state, action: create.path()), status: .unprocessableContent)
        }
        let app = context.app
        let now = app.now
        return .redirect(to: try app.database.write { tx in
            try once.run(tx) {
                let id = try PlateStore.create(
                    tx, name: settings.name, mode: settings.mode, ruleset: settings.ruleset, scoring: settings.scoring, hostID: user.id, now: now)
                _ = try app.invites.issue(tx, kind: inviteKind, targetID: id, createdBy: user.id, now: now)
                tx.afterCommit { publish(app, gameID: id, members: [user.id]) }
                return show.path(id)
            }
        })
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
            try PlateStore.update(tx, gameID: game.id, name: settings.name, ruleset: settings.ruleset, scoring: settings.scoring)
            try PlateStore.setMode(tx, gameID: game.id, mode: settings.mode)
            let members = try PlateStore.playerIDs(tx, gameID: game.id)
            try context.flash(tx, "Saved.")
            tx.afterCommit { publish(app, gameID: game.id, members: members) }
        }
        return .redirect(to: players.path(game.id))
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
            try publishAfterCommit(tx, app, gameID: game.id)
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
        var reader = FormReader(context.request.form)
        let note = reader.line("note", label: "where you saw it", max: PlateStore.noteLimit)
        if let problem = reader.state.errors["note"] { throw HTTPError(.unprocessableContent, problem) }
        let also = context.request.form["also"] == "yes"
        let outcome = try context.write(PlateGameScope.self, parameter: "game") { tx, game -> SpotOutcome in
            guard try PlateTripStore.endedAt(tx, gameID: game.id) == nil else { throw HTTPError(.unprocessableContent, PlateTripRoutes.ended) }
            guard let region = try PlateStore.region(tx, code: code, ruleset: game.ruleset) else { return .unknown }
            // On a shared board a state someone else has is already there:
            // the tap asks first rather than posting a second "Texas" to everyone.
            let earlier = try PlateStore.spots(tx, gameID: game.id, region: region.code)
            let sharedAlready = game.mode == .collaborative && !earlier.isEmpty
            if sharedAlready, !also, let first = earlier.first, !earlier.contains(where: { $0.userID == user.id }) {
                try context.flash(tx, "\(first.playerName) spotted \(region.name) already.")
                return .askFirst(region.code)
            }
            // A spot sent again (an offline queue's retry) was made the first
            // time; it is not made again, even if it was undone in between.
            guard try ClientActions.claim(tx, id: clientID, userID: user.id, kind: "plate.spot", now: now) else { return .spotted }
            // Spotting twice is harmless: nothing new, nobody told again.
            if try PlateStore.spot(tx, gameID: game.id, userID: user.id, region: region.code, now: now, note: note) {
                let members = try PlateStore.playerIDs(tx, gameID: game.id)
                tx.afterCommit { publish(app, gameID: game.id, members: members) }
                // "I saw one too" changes only the viewer's own count: nobody is told.
                if sharedAlready {
                    try context.flash(tx, "Added yours: \(region.name) counts on your own board too.")
                    return .spotted
                }
                try app.notifications.record(
                    Notifications.Event(
                        kind: notificationKind, scope: game.notificationScope, scopeTitle: game.name, actorID: user.id,
                        actorName: user.displayName, subject: region.name, link: board, recipients: members),
                    in: tx)
            }
            try context.flash(tx, "Spotted \(region.name)!")
            return .spotted
        }
        switch outcome {
        case .unknown: throw HTTPError(.unprocessableContent, "Choose one of the states this game counts.")
        case .askFirst(let region): return .redirect(to: state.path(game.id, region))
        case .spotted: return .redirect(to: context.request.form["from"] == "list" ? spotList.path(game.id) : board)
        }
    }

    enum SpotOutcome {
        /// Not a region the rules count.
        case unknown
        /// Someone else has it on the shared board: its page asks first.
        case askFirst(String)
        case spotted
    }

    static func undoPost(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        let spotID = try context.request.parameter("spot", as: Int64.self)
        let app = context.app
        let asked = try app.database.read { db -> (PlateSpot, Int)? in
            guard let found = try PlateStore.spot(db, id: spotID, gameID: game.id) else { return nil }
            return (found, try PlateStore.spots(db, gameID: game.id, region: found.region).count - 1)
        }
        guard let (asked, others) = asked else { throw HTTPError.notFound("That spot isn't in this game.") }
        guard asked.userID == game.userID else { throw HTTPError.forbidden("You can only undo your own spots.") }
        if let page = context.unconfirmed(takeBackConfirmation(asked.regionName, others: others), cancel: show.path(game.id)) { return page }
        let now = app.now
        try context.write(PlateGameScope.self, parameter: "game") { tx, game in
            guard let found = try PlateStore.spot(tx, id: spotID, gameID: game.id) else { throw HTTPError.notFound("That spot isn't in this game.") }
            var snapshot = RowSnapshot()
            try snapshot.capture(tx, "plate_spots", where: "id = \(spotID)")
            guard found.userID == game.userID, try PlateStore.undo(tx, spotID: spotID, gameID: game.id, userID: game.userID) else {
                throw HTTPError.forbidden("You can only undo your own spots.")
            }
            try UndoJournal.record(
                tx, userID: game.userID, kind: spotUndoKind, targetID: game.id, message: "\(found.regionName) spot taken back.",
                snapshot: snapshot, now: now)
            try app.notifications.withdraw(
                kind: notificationKind, scope: game.notificationScope, actorID: game.userID, subject: found.regionName, in: tx)
            try publishAfterCommit(tx, app, gameID: game.id)
        }
        return .redirect(to: show.path(game.id))
    }

    static func removePost(_ context: RequestContext) throws -> Response {
        let game = try context.load(PlateGameScope.self, parameter: "game")
        guard game.role.canRemovePlayers else { throw HTTPError.forbidden("Only the host can remove players.") }
        let playerID = try context.request.parameter("player", as: Int64.self)
        guard playerID != game.userID else {
            throw HTTPError(.unprocessableContent, "To step away from your own game, leave it instead.")
        }
        let asked = try context.app.database.read { db in
            (try PlateStore.players(db, gameID: game.id).first { $0.userID == playerID }, try PlateStore.spotCounts(db, gameID: game.id)[playerID] ?? 0)
        }
        guard let player = asked.0 else { throw HTTPError.notFound("That person isn't in this game.") }
        if let page = context.unconfirmed(removeConfirmation(player.name, spots: asked.1), cancel: players.path(game.id)) { return page }
        let now = context.app.now
        let removed = try context.write(PlateGameScope.self, parameter: "game") { tx, game in
            guard game.role.canRemovePlayers else { throw HTTPError.forbidden("Only the host can remove players.") }
            // The player's row before their spots, the order the undo inserts in.
            var snapshot = RowSnapshot()
            try snapshot.capture(tx, "plate_players", where: "game_id = \(game.id) AND user_id = \(playerID)")
            try snapshot.capture(tx, "plate_spots", where: "game_id = \(game.id) AND user_id = \(playerID)")
            guard try removePlayer(tx, context.app, game: game.id, userID: playerID) else { return false }
            try UndoJournal.record(
                tx, userID: game.userID, kind: playerUndoKind, targetID: game.id, message: "\(player.name) removed.", snapshot: snapshot, now: now)
            return true
        }
        guard removed else { throw HTTPError.notFound("That person isn't in this game.") }
        return .redirect(to: players.path(game.id))
    }

    // MARK: Destructive actions

    static func takeBackConfirmation(_ regionName: String, others: Int) -> Confirmation {
        Confirmation(
            "Take back your \(regionName) spot?",
            others <= 0
                ? "\(regionName) comes off the board."
                : "Only your spot goes: \(others == 1 ? "1 other player" : "\(others) other players") spotted \(regionName) too.",
            button: "Take back spot")
    }

    /// Leaving has its own page (the board links to it), and a post that
    /// skipped it is asked the same question.
    static func leaveConfirmation(_ app: KithApp, game: PlateGameScope) throws -> Confirmation {
        let players = try app.database.read { try PlateStore.playerIDs($0, gameID: game.id).count }
        return Confirmation(
            "Leave \(game.name)?",
            players == 1
                ? "You're the last player: the game and all its spots will be deleted."
                : "Your spots in this game go with you. You can join again with the code, but you'd start from zero.",
            button: "Leave the game")
    }

    static func removeConfirmation(_ name: String, spots: Int) -> Confirmation {
        Confirmation(
            "Remove \(name)?",
            spots == 0 ? "They haven't spotted any plates yet." : "Their \(spots == 1 ? "1 spot goes" : "\(spots) spots go") too.",
            button: "Remove player")
    }

    static func rotateConfirmation(code: String?) -> Confirmation {
        InviteCodes.rotateConfirmation("a new invite code", code: code)
    }

    /// Puts back a spot the viewer took back, or a player the host removed
    /// with their spots (each at its original time), if nothing has changed
    /// that would make the old rows wrong: the spot spotted again, the
    /// player back in the game or gone from Kith.
    static func restorePost(_ context: RequestContext) throws -> Response {
        let entryID = try context.request.parameter("entry", as: Int64.self)
        let app = context.app
        let now = app.now
        let landing = try context.write(PlateGameScope.self, parameter: "game") { tx, game -> String in
            let entry = try UndoJournal.take(tx, id: entryID, userID: game.userID, kinds: [spotUndoKind, playerUndoKind], now: now)
            guard entry.targetID == game.id else { throw HTTPError.notFound("There is nothing of yours to undo here.") }
            let spots = entry.snapshot.rows("plate_spots")
            if entry.kind == playerUndoKind {
                guard let row = entry.snapshot.rows("plate_players").first, case .integer(let userID)? = row["user_id"] else {
                    throw UndoJournal.tooLate("nothing was kept to put back.")
                }
                guard try AccountStore.user(tx, id: userID) != nil else {
                    throw UndoJournal.tooLate("they have left Kith.")
                }
                guard !(try PlateStore.playerIDs(tx, gameID: game.id).contains(userID)) else {
                    throw UndoJournal.tooLate("they are back in the game already.")
                }
            } else {
                guard let spot = spots.first, case .text(let region)? = spot["region"] else {
                    throw UndoJournal.tooLate("nothing was kept to put back.")
                }
                guard try PlateStore.spots(tx, gameID: game.id, region: region).allSatisfy({ $0.userID != game.userID }) else {
                    throw UndoJournal.tooLate("you have spotted it again since.")
                }
            }
            // Spot ids may have been taken by newer spots; nothing names them.
            try entry.snapshot.restore(tx, fresh: ["plate_spots": ["id"]])
            try publishAfterCommit(tx, app, gameID: game.id)
            return entry.kind == playerUndoKind ? players.path(game.id) : show.path(game.id)
        }
        return .redirect(to: landing)
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

    /// The same once `tx` commits, for the game's players as they stand in it.
    static func publishAfterCommit(_ tx: Transaction, _ app: KithApp, gameID: Int64) throws {
        let members = try PlateStore.playerIDs(tx, gameID: gameID)
        tx.afterCommit { publish(app, gameID: gameID, members: members) }
    }

    /// What a change to a game invalidates: its own pages, and the
    /// dashboards of `members`.
    static func invalidations(gameID: Int64, members: [Int64]) -> [LiveInvalidation] {
        [LiveInvalidation(topic: topic(gameID), fragments: [.plateBoard, .plateFeed, .plateList])]
            + members.map { LiveInvalidation(topic: listTopic($0), fragments: [.plateGames]) }
    }
}
