/// A plate game's board: the map, progress, in competitive mode the
/// leaderboard and every player's board, the feed of recent spots, and a
/// celebration once a board is complete. The board and the feed are live
/// fragments (`#plate-board`, `#plate-feed`) each viewer refetches with
/// their own rights.
public enum PlateBoardPage {
    public struct Player: Sendable, Equatable {
        public var name: String
        public var colour: Int
        public var score: Int
        public var isViewer: Bool
        public var isHost: Bool
        /// Their points, in a game scored by rarity; nil in one scored by count.
        public var points: Int?
        public init(name: String, colour: Int, score: Int, isViewer: Bool, isHost: Bool) {
            self.name = name
            self.colour = colour
            self.score = score
            self.isViewer = isViewer
            self.isHost = isHost
        }
    }

    /// Another player's board, drawn in their colour, to look at only.
    public struct Board: Sendable, Equatable {
        public var player: Player
        public var statuses: [String: USMap.Status]
        public init(player: Player, statuses: [String: USMap.Status]) {
            self.player = player
            self.statuses = statuses
        }
    }

    public struct FeedItem: Sendable, Equatable {
        public var regionName: String
        public var regionCode: String
        public var playerName: String
        public var relativeTime: String
        public var machineTime: String
        /// The undo form's action, on the viewer's own spots only.
        public var undoAction: String?
        /// What taking that spot back would do.
        public var undoConfirmation: Confirmation?
        /// Where it was seen, as the spotter typed it.
        public var note: String?
        /// When, in seconds: the feed groups one person's burst of spots.
        public var spottedAt: Int64 = 0
        public init(regionName: String, regionCode: String, playerName: String, relativeTime: String, machineTime: String, undoAction: String?) {
            self.regionName = regionName
            self.regionCode = regionCode
            self.playerName = playerName
            self.relativeTime = relativeTime
            self.machineTime = machineTime
            self.undoAction = undoAction
        }
    }

    /// Where the page's links and forms go.
    public struct Paths: Sendable, Equatable {
        public var board: String
        public var boardFragment: String
        public var feedFragment: String
        public var spotList: String
        /// Each playable state's confirm page, by postal code.
        public var states: [String: String]
        public var spot: String
        public var mode: String
        public var players: String
        /// The board as a PNG, and the spots as CSV.
        public var image: String = ""
        public var csv: String = ""
        /// Where the page says the viewer has watched the finished game's
        /// celebration; nil once they have, and then it is not drawn.
        public var celebrated: String? = nil
        public init(
            board: String, boardFragment: String, feedFragment: String, spotList: String, states: [String: String], spot: String, mode: String,
            players: String
        ) {
            self.board = board
            self.boardFragment = boardFragment
            self.feedFragment = feedFragment
            self.spotList = spotList
            self.states = states
            self.spot = spot
            self.mode = mode
            self.players = players
        }
    }

    public struct Model: Sendable {
        public var name: String
        /// `competitive` or `collaborative`.
        public var mode: String
        public var isHost: Bool
        /// Regions the rules count: 50, or 51 with DC.
        public var target: Int
        /// The viewer's board's count: the group's in collaborative mode, their own in competitive.
        public var progress: Int
        /// The viewer's board: every state's status.
        public var statuses: [String: USMap.Status]
        public var playable: Set<String>
        /// Best first (competitive); everyone, for the legend (collaborative).
        public var players: [Player]
        /// Competitive: the other players' boards.
        public var otherBoards: [Board]
        public var feed: [FeedItem]
        /// Who has completed a board: the group ("Everyone") or players by name.
        public var finishers: [String]
        /// The viewer's IANA time zone: the page's script shows each spot's
        /// clock time in it.
        public var timeZone: String
        public var paths: Paths
        /// The viewer's own spot just taken back, while it can be undone.
        public var undo: Confirm.UndoNotice?
        /// The group's points, in a collaborative game scored by rarity.
        public var groupPoints: Int?
        /// Names this game's celebration for this viewer, so the page's
        /// script plays it once, not on every refresh.
        public var celebrationKey: String = ""
        /// Ending this trip, the next one, its numbers.
        public var trip: PlateTripControls?
        /// The "still missing" view, when the viewer asked for it.
        public var missing: PlateMissing = PlateMissing()
        /// Maps a file in `Public/` to its URL, for the maps' outline sprite;
        /// nil draws the outlines inline.
        public var assetURL: (@Sendable (String) -> String)?

        public init(
            name: String, mode: String, isHost: Bool, target: Int, progress: Int, statuses: [String: USMap.Status], playable: Set<String>,
            players: [Player], otherBoards: [Board], feed: [FeedItem], finishers: [String], timeZone: String, paths: Paths
        ) {
            self.name = name
            self.mode = mode
            self.isHost = isHost
            self.target = target
            self.progress = progress
            self.statuses = statuses
            self.playable = playable
            self.players = players
            self.otherBoards = otherBoards
            self.feed = feed
            self.finishers = finishers
            self.timeZone = timeZone
            self.paths = paths
        }

        var isCompetitive: Bool { mode == "competitive" }
        var isEnded: Bool { trip?.endedOn != nil }
    }

    public static func render(context: PageContext, model: Model) -> HTML {
        Layout.page(
            title: model.name, context: context,
            main: """
                <section class="container stack roadtrip plate-game"\(attribute: "data-ending-gone", "You're no longer in \(model.name)")>
                <header class="plate-game__header">
                <h1 class="road-sign plate-game__title">\(model.name)</h1>
                <p class="plate-game__meta"><a\(attribute: "href", model.paths.players)>Players and invite</a></p>
                \(model.isEnded ? "" : "<div class=\"form-actions\">\(Button.link("Spotted a plate", href: model.paths.spotList))</div>" as HTML)
                </header>
                \(Confirm.undo(model.undo, csrf: context.csrfToken))
                \(board(model: model, csrfToken: context.csrfToken))
                <form id="plate-map-form" method="post"\(attribute: "action", model.paths.spot) data-enhance data-offline-queue\(attribute: "data-target", FragmentID.plateBoard.rawValue)\(attribute: "data-worker", context.links[.serviceWorker])\(attribute: "data-worker-scope", context.links[.home]) hidden>
                \(Layout.csrfField(context.csrfToken))<input type="hidden" name="state" value="">
                <input type="hidden" name="from" value="board">
                </form>
                <hr class="road-line">
                \(feed(model: model, csrfToken: context.csrfToken))
                \(share(model))
                </section>
                """)
    }

    /// The live part that changes with every spot: progress, the
    /// celebration, the map(s) and the leaderboard.
    public static func board(model: Model, csrfToken: String?) -> HTML {
        let states = model.paths.states
        let label = model.isCompetitive ? "Your board: \(model.progress) of \(model.target)" : "\(model.name): \(model.progress) of \(model.target)"
        // An ended trip's board is to look at: no state is a control any more.
        let options =
            model.isEnded
            ? USMap.Options(label: label, playable: model.playable, assetURL: model.assetURL)
            : USMap.Options(label: label, playable: model.playable, link: { states[$0] ?? "" }, assetURL: model.assetURL)
        let map = USMap.render(statuses: model.statuses, options: options)
        let progressLabel = model.isCompetitive ? "Your board" : "Together"
        return """
            <div\(attribute: "id", FragmentID.plateBoard.rawValue) class="plate-board stack"\(attribute: "data-fragment", model.paths.boardFragment)>
            \(PlateTripControls.notice(model.trip))
            \(modeRow(model: model, csrfToken: csrfToken))
            <p class="plate-progress"><span class="plate-progress__label">\(progressLabel)</span> \
            <strong class="plate-progress__count">\(model.progress) of \(model.target)</strong>\(pointsText(model.groupPoints))</p>
            <progress class="plate-progress__bar"\(attribute: "value", String(model.progress))\(attribute: "max", String(model.target))\(attribute: "aria-label", "\(progressLabel): \(model.progress) of \(model.target)")></progress>
            \(celebration(model))
            \(PlateMissing.nav(model.missing))
            <div\(attribute: "class", "plate-map" + model.missing.mapClass)>
            <a class="plate-skip" href="#plate-feed">Skip past the map</a>
            \(map)
            \(USMap.chips(statuses: model.statuses, options: options))
            </div>
            \(PlateMissing.summary(model.missing))
            \(legend(model))
            \(model.isCompetitive ? leaderboard(model) : HTML.empty)
            \(PlateTripControls.render(model.trip, csrf: csrfToken))
            </div>
            """
    }

    /// " · 17 points" after a count, in a game scored by rarity.
    static func pointsText(_ points: Int?) -> HTML {
        guard let points else { return .empty }
        return " <span class=\"plate-points\">· \(points == 1 ? "1 point" : "\(points) points")</span>"
    }

    static func celebration(_ model: Model) -> HTML {
        guard !model.finishers.isEmpty else { return .empty }
        let who = model.finishers.joined(separator: ", ")
        let message =
            model.isCompetitive
            ? "\(who) spotted all \(model.target)!"
            : "All \(model.target) spotted. What a road trip!"
        guard let seen = model.paths.celebrated else { return "<p class=\"plate-celebration\">\(message)</p>" }
        return """
            <p class="plate-celebration" role="status"\(attribute: "data-celebrate-seen", seen) data-celebrate="confetti"\(attribute: "data-celebrate-once", model.celebrationKey)>\(message)</p>
            """
    }

    static func legend(_ model: Model) -> HTML {
        let others: HTML =
            model.isCompetitive
            ? ""
            : "<li><span class=\"plate-key plate-key--others\" aria-hidden=\"true\"></span> Spotted by someone else</li>"
        return """
            <ul class="plate-legend" aria-label="Map key">
            <li><span class="plate-key plate-key--mine" aria-hidden="true"></span> Spotted by you</li>
            \(others)
            <li><span class="plate-key plate-key--unspotted" aria-hidden="true"></span> Not yet</li>
            </ul>
            """
    }

    static func leaderboard(_ model: Model) -> HTML {
        let rows = model.players.map { player -> HTML in
            let you: HTML = player.isViewer ? " <span class=\"muted\">(you)</span>" : ""
            return """
                <li class="plate-leader"><span class="plate-leader__rank">\(rank(of: player, among: model.players))</span>\
                <span\(attribute: "class", "plate-swatch plate-swatch--p\(player.colour % USMap.playerColours)") aria-hidden="true"></span>\
                <span class="plate-leader__name">\(player.name)\(you)</span>\
                <span class="plate-leader__score">\(player.score) of \(model.target)\(pointsText(player.points))</span></li>
                """
        }
        let boards = model.otherBoards.map { board -> HTML in
            let map = USMap.render(
                statuses: board.statuses,
                options: USMap.Options(label: "\(board.player.name)'s board", playable: model.playable, assetURL: model.assetURL))
            return """
                <figure class="plate-mini">
                \(map)
                <figcaption><span\(attribute: "class", "plate-swatch plate-swatch--p\(board.player.colour % USMap.playerColours)") aria-hidden="true"></span> \(board.player.name): \(board.player.score) of \(model.target)</figcaption>
                </figure>
                """
        }
        let boardsSection: HTML =
            boards.isEmpty
            ? ""
            : """
            <h2 class="plate-section-title">Everyone's boards</h2>
            <div class="plate-minis">
            \(boards.joined(separator: "\n"))
            </div>
            """
        return """
            <section class="plate-leaderboard" aria-labelledby="plate-leaderboard-title">
            <h2 class="plate-section-title" id="plate-leaderboard-title">Leaderboard</h2>
            <ol class="plate-leaders">
            \(rows.joined(separator: "\n"))
            </ol>
            \(boardsSection)
            </section>
            """
    }

    /// The board to take away: the picture and the spots.
    static func share(_ model: Model) -> HTML {
        guard !model.paths.image.isEmpty else { return .empty }
        return """
            <section class="plate-share" aria-labelledby="plate-share-title">
            <h2 class="plate-section-title" id="plate-share-title">Keep the board</h2>
            <ul class="plate-share__links">
            <li><a\(attribute: "href", model.paths.image + "?download=1") download>Map picture (PNG)</a></li>
            <li><a\(attribute: "href", model.paths.csv) download>Every spot (CSV)</a></li>
            </ul>
            </section>
            """
    }

    /// Players with the same score share a place: 1, 1, 3.
    public static func rank(of player: Player, among players: [Player]) -> Int {
        1 + players.filter { $0.score > player.score }.count
    }

    /// The badge saying how the game is played, and the host's switch. Part
    /// of the live board, so a switch shows on every open page.
    static func modeRow(model: Model, csrfToken: String?) -> HTML {
        let otherMode = model.isCompetitive ? "collaborative" : "competitive"
        let modeSwitch: HTML =
            model.isHost
            ? """
            <form method="post"\(attribute: "action", model.paths.mode) class="plate-mode">
            \(Layout.csrfField(csrfToken))<input type="hidden" name="mode"\(attribute: "value", otherMode)>
            \(Button.secondary("Switch to \(otherMode)", small: true))
            </form>
            """
            : ""
        return """
            <div class="plate-board__mode"><span class="badge badge--green plate-mode-badge">\(model.isCompetitive ? "Competitive" : "Collaborative")</span>
            \(modeSwitch)</div>
            """
    }

    /// The feed of recent spots: "Idaho — Dad — 2 hours ago", and one
    /// person's burst as one line that opens to its spots.
    public static func feed(model: Model, csrfToken: String?) -> HTML {
        let items = PlateFeedBursts.group(model.feed).map { burst -> HTML in
            guard burst.count > 1, let newest = burst.first else { return feedItem(burst[0], csrfToken: csrfToken) }
            let inner = burst.map { feedItem($0, csrfToken: csrfToken) }
            return """
                <li class="plate-feed__item plate-feed__burst"><details><summary>\(PlateFeedBursts.headline(burst)) — \
                <time class="muted"\(attribute: "datetime", newest.machineTime)>\(newest.relativeTime)</time></summary>
                <ul class="plate-feed__list">
                \(inner.joined(separator: "\n"))
                </ul></details></li>
                """
        }
        let list: HTML =
            items.isEmpty
            ? "<p class=\"muted\">No plates yet. The first one is always the best.</p>"
            : "<ul class=\"plate-feed__list\">\n\(items.joined(separator: "\n"))\n</ul>"
        return """
            <section\(attribute: "id", FragmentID.plateFeed.rawValue) class="plate-feed stack"\(attribute: "data-fragment", model.paths.feedFragment)\(attribute: "data-time-zone", model.timeZone) aria-labelledby="plate-feed-title">
            <h2 class="plate-section-title" id="plate-feed-title">Latest spots</h2>
            \(list)
            </section>
            """
    }

    static func feedItem(_ item: FeedItem, csrfToken: String?) -> HTML {
            let undo: HTML = item.undoAction.map { action in
                """
                <form method="post"\(attribute: "action", action) class="plate-feed__undo"\(item.undoConfirmation.map(Confirm.attributes))>\
                \(Layout.csrfField(csrfToken))\
                <button class="link-button" type="submit"\(attribute: "aria-label", "Undo your spot of \(item.regionName)")>Undo</button></form>
                """
            } ?? ""
            let note: HTML = item.note.map { " <span class=\"plate-feed__note\">· \($0)</span>" } ?? ""
            return """
                <li class="plate-feed__item"><strong>\(item.regionName)</strong> — \(item.playerName)\(note) — \
                <time class="muted"\(attribute: "datetime", item.machineTime)>\(item.relativeTime)</time>\(undo)</li>
                """
    }
}

extension FragmentID {
    /// A game's map, progress and leaderboard.
    public static let plateBoard = FragmentID("plate-board")
    /// A game's recent spots.
    public static let plateFeed = FragmentID("plate-feed")
    /// The spot-by-name list.
    public static let plateList = FragmentID("plate-list")
    /// The dashboard's list of games.
    public static let plateGames = FragmentID("plate-games")
}
