/// The smaller plate-game pages: create, spot by name, confirm a state,
/// players and invite, leave, and the dashboard section.

/// `/games/new`: a name, a mode, and whether DC counts.
public enum PlateNewPage {
    public static func render(context: PageContext, form: FormState, action: String) -> HTML {
        Layout.page(
            title: "New plate game", context: context,
            main: """
                <section class="container container--narrow stack roadtrip plate-page">
                <header class="page-header"><h1 class="road-sign">New plate game</h1>
                <p>Spot licence plates from all fifty states, over a trip or over a year.</p></header>
                \(form.summary(order: ["name", "mode", "countries", "scoring"]))
                <form class="form stack" method="post"\(attribute: "action", action) novalidate>
                \(Layout.csrfField(context.csrfToken))\(form.onceField)
                \(fields(form))
                <div class="form-actions">\(Button.primary("Start the game"))</div>
                </form>
                </section>
                """)
    }

    /// Name, mode and rules: the same fields create a game and change it.
    static func fields(_ form: FormState) -> HTML {
        """
        \(FormField.text(name: "name", label: "Game name", value: form.values["name"], hint: "Up to 60 characters, like Summer Road Trip.", error: form.errors["name"], required: true, maxLength: 60, autocomplete: "off"))
        \(FormField.radios(name: "mode", legend: "How you play", options: PlateForms.modes, selected: form.values["mode"] ?? "collaborative", error: form.errors["mode"]))
        \(FormField.radios(name: "countries", legend: "Whose plates count", options: PlateForms.countries, selected: form.values["countries"] ?? "us", error: form.errors["countries"]))
        \(FormField.checkbox(name: "dc", label: "Washington, DC counts too", checked: form.values["dc"] == "on", hint: "One more region to find."))
        \(FormField.radios(name: "scoring", legend: "Scoring", options: PlateForms.scoring, selected: form.values["scoring"] ?? "count", error: form.errors["scoring"]))
        """
    }
}

enum PlateForms {
    static let countries: [(value: String, label: String)] = [
        ("us", "The 50 states"), ("us-ca", "The 50 states and Canada's 13 provinces and territories"),
        ("us-ca-mx", "The 50 states, Canada's 13 provinces and territories, and Mexico's 32 states"),
    ]
    static let scoring: [(value: String, label: String)] = [
        ("count", "A point a region"), ("rarity", "Rare plates score more (Hawaii 5, Alaska 4, DC 3, Nunavut 5…)"),
    ]
    static let modes: [(value: String, label: String)] = [
        ("collaborative", "Together: one shared board"), ("competitive", "Race: a board each"),
    ]
}

/// A region in the by-name list, with what it means to the viewer.
public struct PlateListItem: Sendable, Equatable {
    public var code: String
    public var name: String
    public var status: USMap.Status
    public init(code: String, name: String, status: USMap.Status) {
        self.code = code
        self.name = name
        self.status = status
    }
}

/// `/games/7/spot`: every state by name, each a button that spots it. Works
/// without script; the page's script adds a filter box ("rh" finds Rhode Island).
public enum PlateSpotListPage {
    public static func render(
        context: PageContext, gameName: String, board: String, action: String, fragment: String, items: [PlateListItem],
        missing: PlateMissing = PlateMissing()
    ) -> HTML {
        Layout.page(
            title: "Spotted a plate · \(gameName)", context: context,
            main: """
                <section class="container container--narrow stack roadtrip plate-page"\(attribute: "data-ending-gone", "You're no longer in \(gameName)")>
                <header class="page-header"><h1 class="road-sign">Spotted a plate</h1>
                <p>Which state was it? <a\(attribute: "href", board)>Back to \(gameName)</a></p></header>
                \(PlateMissing.nav(missing))
                <div class="plate-filter field" data-plate-filter hidden>
                <label class="field__label" for="plate-filter-input">Find a state</label>
                <input class="field__input" id="plate-filter-input" type="search" autocomplete="off" spellcheck="false" placeholder="Type a few letters, like rh" aria-controls="plate-list" aria-describedby="plate-filter-count">
                <p class="muted" id="plate-filter-count" aria-live="polite"></p>
                </div>
                \(list(csrfToken: context.csrfToken, action: action, fragment: fragment, items: items))
                </section>
                """)
    }

    /// One form, a button per state: pressing one posts its code. A live
    /// fragment: others' spots mark it while it is open.
    public static func list(csrfToken: String?, action: String, fragment: String, items: [PlateListItem]) -> HTML {
        let buttons = items.map { item -> HTML in
            let spotted = item.status != .unspotted
            let note: HTML =
                switch item.status {
                case .unspotted: ""
                case .mine: "<span class=\"plate-list__note\">you</span>"
                case .others(let name), .player(_, let name): "<span class=\"plate-list__note\">\(name)</span>"
                }
            return """
                <li class="plate-list__item"\(attribute: "data-name", item.name.lowercased())><button type="submit" name="state"\(attribute: "value", item.code)\
                \(attribute: "class", spotted ? "plate plate-list__button plate--spotted" : "plate plate-list__button")\
                \(attribute: "aria-label", "\(item.name), \(item.status.spoken)")>\
                <span class="plate__state">\(item.name)</span><span class="plate__code">\(item.code)</span>\(note)</button></li>
                """
        }
        return """
            <form\(attribute: "id", FragmentID.plateList.rawValue) class="plate-list" method="post"\(attribute: "action", action)\(attribute: "data-fragment", fragment) data-enhance data-offline-queue\(attribute: "data-target", FragmentID.plateList.rawValue)>
            \(Layout.csrfField(csrfToken))<input type="hidden" name="from" value="list">
            <ul class="plate-list__items">
            \(buttons.joined(separator: "\n"))
            </ul>
            </form>
            """
    }
}

/// `/games/7/states/ID`: what a tap on the map opens without script. Spot
/// it, or see that you have and undo it.
public enum PlateStatePage {
    public struct Model: Sendable {
        public var gameName: String
        public var regionName: String
        public var regionCode: String
        public var board: String
        public var spotAction: String
        /// The viewer's own spot's undo action, when they have spotted it.
        public var undoAction: String?
        /// Everyone who has spotted it, first first.
        public var spotters: [String]
        /// What taking the viewer's spot back would do.
        public var undoConfirmation: Confirmation?
        /// Collaborative, spotted by someone else and not by the viewer: who
        /// spotted it first. The page then offers "I saw one too", which adds
        /// the viewer's own spot without a second line in the feed.
        public var firstSpotter: String?
        public init(
            gameName: String, regionName: String, regionCode: String, board: String, spotAction: String, undoAction: String?, spotters: [String]
        ) {
            self.gameName = gameName
            self.regionName = regionName
            self.regionCode = regionCode
            self.board = board
            self.spotAction = spotAction
            self.undoAction = undoAction
            self.spotters = spotters
        }
    }

    public static func render(context: PageContext, model: Model) -> HTML {
        let who: HTML =
            model.spotters.isEmpty
            ? "<p>Nobody in \(model.gameName) has spotted one yet.</p>"
            : "<p>Spotted by \(model.spotters.joined(separator: "; ")).</p>"
        let action: HTML
        if let undo = model.undoAction, let confirmation = model.undoConfirmation {
            action = Confirm.button("Undo my spot", action: undo, csrf: context.csrfToken, confirmation, small: false, formClass: "form-actions")
        } else {
            let also: HTML =
                model.firstSpotter == nil
                ? ""
                : """
                <input type="hidden" name="also" value="yes">\
                <p class="muted">It's on the shared board already. Your own spot counts if the game becomes a race.</p>
                """
            let button = model.firstSpotter == nil ? "Yes, I spotted \(model.regionName)" : "I saw one too"
            action = """
                <form method="post"\(attribute: "action", model.spotAction) class="form stack">\(Layout.csrfField(context.csrfToken))\
                <input type="hidden" name="state"\(attribute: "value", model.regionCode)><input type="hidden" name="from" value="board">\
                \(also)\
                \(FormField.text(name: "note", label: "Where? (optional)", value: nil, hint: "A place in your words, like the rest stop near Amarillo. Never your location.", error: nil, required: false, maxLength: 80, autocomplete: "off"))
                <div class="form-actions">\(Button.primary(button))</div></form>
                """
        }
        return Layout.page(
            title: "\(model.regionName) · \(model.gameName)", context: context,
            main: """
                <section class="container container--narrow stack roadtrip plate-page"\(attribute: "data-ending-gone", "You're no longer in \(model.gameName)")>
                <header class="page-header">
                <p class="plate plate--large"><span class="plate__state">\(model.regionName)</span><span class="plate__code">\(model.regionCode)</span></p>
                <h1>\(model.undoAction == nil ? "Spotted a plate from \(model.regionName)?" : "You spotted \(model.regionName)")</h1>
                </header>
                \(who)
                \(action)
                <p><a\(attribute: "href", model.board)>Back to \(model.gameName)</a></p>
                </section>
                """)
    }
}

/// `/games/7/players`: the invite (code, link, QR), the roster and, for the
/// host, the game's settings, rotating the code and removing players.
public enum PlatePlayersPage {
    public struct Player: Sendable, Equatable {
        public var name: String
        public var colour: Int
        public var isHost: Bool
        public var isViewer: Bool
        /// The host's remove form action; nil for everyone else.
        public var removeAction: String?
        /// What removing them would do ("Their 3 spots go too").
        public var removeConfirmation: Confirmation?
        public init(name: String, colour: Int, isHost: Bool, isViewer: Bool, removeAction: String?, removeConfirmation: Confirmation? = nil) {
            self.removeConfirmation = removeConfirmation
            self.name = name
            self.colour = colour
            self.isHost = isHost
            self.isViewer = isViewer
            self.removeAction = removeAction
        }
    }

    public struct Model: Sendable {
        public var gameName: String
        public var code: String?
        public var link: String?
        public var qrCode: HTML
        public var players: [Player]
        public var isHost: Bool
        public var board: String
        public var settingsAction: String
        public var rotateAction: String
        public var leave: String
        public var form: FormState
        /// What a new code would do to the old one.
        public var rotateConfirmation: Confirmation?
        /// The host's own removal of a player, while it can be undone.
        public var undo: Confirm.UndoNotice?
        public init(
            gameName: String, code: String?, link: String?, qrCode: HTML, players: [Player], isHost: Bool, board: String, settingsAction: String,
            rotateAction: String, leave: String, form: FormState
        ) {
            self.gameName = gameName
            self.code = code
            self.link = link
            self.qrCode = qrCode
            self.players = players
            self.isHost = isHost
            self.board = board
            self.settingsAction = settingsAction
            self.rotateAction = rotateAction
            self.leave = leave
            self.form = form
        }
    }

    public static func render(context: PageContext, model: Model) -> HTML {
        let invite: HTML
        if let code = model.code, let link = model.link {
            let rotate: HTML =
                model.isHost
                ? model.rotateConfirmation.map {
                    Confirm.button("New code (the old one stops working)", action: model.rotateAction, csrf: context.csrfToken, $0, formClass: "")
                } ?? ""
                : ""
            invite = """
                <section class="stack" aria-labelledby="plate-invite-title">
                <h2 id="plate-invite-title">Invite the family</h2>
                <p>Read the code aloud; they type it at <a\(attribute: "href", context.links[.join])>Join with a code</a>. Or share the link.</p>
                \(PlateInviteCode.render(code))
                \(InviteLinkCard.render(title: "Invite link for \(model.gameName)", link: link, qrCode: model.qrCode))
                \(rotate)
                </section>
                """
        } else {
            invite = ""
        }
        let roster = model.players.map { player -> HTML in
            let host: HTML = player.isHost ? " <span class=\"badge\">host</span>" : ""
            let you: HTML = player.isViewer ? " <span class=\"muted\">(you)</span>" : ""
            let tags: HTML = "\(host)\(you)"
            let remove: HTML = player.removeAction.map { action in
                """
                <form method="post"\(attribute: "action", action) class="plate-roster__remove"\(player.removeConfirmation.map(Confirm.attributes))>\
                \(Layout.csrfField(context.csrfToken))\
                <button class="link-button" type="submit"\(attribute: "aria-label", "Remove \(player.name) from the game")>Remove</button></form>
                """
            } ?? ""
            return """
                <li class="plate-roster__item"><span\(attribute: "class", "plate-swatch plate-swatch--p\(player.colour % USMap.playerColours)") aria-hidden="true"></span> \(player.name)\(tags)\(remove)</li>
                """
        }
        let settings: HTML =
            model.isHost
            ? """
            <section class="stack" aria-labelledby="plate-settings-title">
            <h2 id="plate-settings-title">Game settings</h2>
            \(model.form.summary(order: ["name", "mode", "countries", "scoring"]))
            <form class="form stack" method="post"\(attribute: "action", model.settingsAction) novalidate>
            \(Layout.csrfField(context.csrfToken))
            \(PlateNewPage.fields(model.form))
            <p class="muted">Switching how you play changes only how the boards are drawn: every spot stays.</p>
            <div class="form-actions">\(Button.primary("Save settings"))</div>
            </form>
            </section>
            """
            : ""
        return Layout.page(
            title: "Players · \(model.gameName)", context: context,
            main: """
                <section class="container container--narrow stack roadtrip plate-page"\(attribute: "data-ending-gone", "You're no longer in \(model.gameName)")>
                <header class="page-header"><h1 class="road-sign">\(model.gameName)</h1>
                <p><a\(attribute: "href", model.board)>Back to the board</a></p></header>
                \(Confirm.undo(model.undo, csrf: context.csrfToken))
                \(invite)
                <section class="stack" aria-labelledby="plate-roster-title">
                <h2 id="plate-roster-title">Players</h2>
                <ul class="plate-roster">
                \(roster.joined(separator: "\n"))
                </ul>
                </section>
                \(settings)
                <p><a\(attribute: "href", model.leave)>Leave this game</a></p>
                </section>
                """)
    }
}


/// The plate games section of the dashboard, a live fragment.
public enum PlateDashboardSection {
    public struct Game: Sendable, Equatable {
        public var name: String
        public var link: String
        public var mode: String
        public var progress: Int
        public var target: Int
        public var players: Int
        /// An ended trip: its board is kept, listed after the games under way.
        public var hasEnded = false
        public init(name: String, link: String, mode: String, progress: Int, target: Int, players: Int) {
            self.name = name
            self.link = link
            self.mode = mode
            self.progress = progress
            self.target = target
            self.players = players
        }
    }

    public static func render(games: [Game], newGame: String, fragment: String) -> HTML {
        let body: HTML
        if games.isEmpty {
            body = EmptyState.render(
                title: "No plate games yet",
                message: "Start one for the next road trip, then share the code with the family.",
                action: Button.link("New plate game", href: newGame), headingLevel: 3, art: PlateArt.emptyState)
        } else {
            let items = games.map { game -> HTML in
                let whose = game.mode == "competitive" ? "your board" : "together"
                let players = game.players == 1 ? "1 player" : "\(game.players) players"
                let count: HTML = game.hasEnded
                    ? "<span>Trip ended · \(game.progress) of \(game.target)</span>"
                    : "<span><strong>\(game.progress) of \(game.target)</strong> \(whose)</span>"
                return """
                    <li class="stack stack--tight"><a\(attribute: "href", game.link)>\(game.name)</a> \
                    \(count) \
                    <span class="muted">\(game.mode == "competitive" ? "Competitive" : "Collaborative") · \(players)</span></li>
                    """
            }
            body = """
                <ul class="stack">
                \(items.joined(separator: "\n"))
                </ul>
                <p>\(Button.link("New plate game", href: newGame, style: .secondary, small: true))</p>
                """
        }
        return """
            <section\(attribute: "id", FragmentID.plateGames.rawValue) class="card stack plate-games-section"\(attribute: "data-fragment", fragment) aria-labelledby="plate-games-title">
            <h2 class="card__title" id="plate-games-title">Plate games</h2>
            \(body)
            </section>
            """
    }
}
