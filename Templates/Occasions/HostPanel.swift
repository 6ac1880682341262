/// Everything the host runs: invites, the celebrant's arrival, prices, the
/// economy, forced actions, points with reasons, the finale, members,
/// reports. Only the host's requests ever render it.
public enum HostPanel {
    public struct InviteLink: Sendable {
        public var title: String
        public var link: String
        public var qrCode: HTML
        public var rotateAction: String
        /// What a new link does to this one.
        public var rotateConfirmation: Confirmation?
        public init(title: String, link: String, qrCode: HTML, rotateAction: String, rotateConfirmation: Confirmation? = nil) {
            self.rotateConfirmation = rotateConfirmation
            self.title = title
            self.link = link
            self.qrCode = qrCode
            self.rotateAction = rotateAction
        }
    }

    public struct GiftRow: Sendable {
        public var id: Int64
        public var giverName: String
        public var kindLabel: String
        public var stateLabel: String
        public var content: HTML
        public var cost: String
        public var position: String
        public var priceAction: String?
        public var unlockAction: String?
        public var deleteAction: String
        /// What deleting it would do ("Sam's letter goes for good"); nil
        /// for a gift that can't be deleted (unlocked), so no button.
        public var deleteConfirmation: Confirmation?
        /// The price form's mistakes by field ("cost", "position"), shown beside them.
        public var priceErrors: [String: String] = [:]
        public init(
            id: Int64, giverName: String, kindLabel: String, stateLabel: String, content: HTML, cost: String, position: String,
            priceAction: String?, unlockAction: String?, deleteAction: String
        ) {
            self.id = id
            self.giverName = giverName
            self.kindLabel = kindLabel
            self.stateLabel = stateLabel
            self.content = content
            self.cost = cost
            self.position = position
            self.priceAction = priceAction
            self.unlockAction = unlockAction
            self.deleteAction = deleteAction
        }
    }

    public struct ChallengeRow: Sendable {
        public var id: Int64
        public var title: String
        public var detail: String
        public var points: Int
        public var isCompleted: Bool
        public var url: String
        public var editURL: String?
        public var completeAction: String?
        /// For a dare: the host may set its points within the bounds.
        public var pointsAction: String?
        public init(
            id: Int64, title: String, detail: String, points: Int, isCompleted: Bool, url: String, editURL: String?,
            completeAction: String?, pointsAction: String?
        ) {
            self.id = id
            self.title = title
            self.detail = detail
            self.points = points
            self.isCompleted = isCompleted
            self.url = url
            self.editURL = editURL
            self.completeAction = completeAction
            self.pointsAction = pointsAction
        }
    }

    public struct Line: Sendable {
        public var text: String
        public var detail: String
        public init(text: String, detail: String) {
            self.text = text
            self.detail = detail
        }
    }

    /// Where the panel's forms post.
    public struct Paths: Sendable {
        public var addChallenge: String
        public var dareBounds: String
        public var adjust: String
        public var handOver: String
        public var finale: String
        public var close: String
        public var reopen: String
        public init(addChallenge: String, dareBounds: String, adjust: String, handOver: String, finale: String, close: String, reopen: String) {
            self.addChallenge = addChallenge
            self.dareBounds = dareBounds
            self.adjust = adjust
            self.handOver = handOver
            self.finale = finale
            self.close = close
            self.reopen = reopen
        }
    }

    public struct Model: Sendable {
        public var celebrantJoined: Bool
        public var invites: [InviteLink]
        public var challengePoints: Int
        public var darePoints: Int
        public var giftCosts: Int
        public var unpricedGifts: Int
        public var gifts: [GiftRow]
        public var challenges: [ChallengeRow]
        public var dares: [ChallengeRow]
        public var dareMin: Int
        public var dareMax: Int
        public var adjustments: [Line]
        public var reports: [Line]
        public var people: [OccasionScreens.Person]
        /// Contributors who could take over as host: (user id, name).
        public var successors: [(id: String, name: String)]
        /// What calling the finale and closing would do.
        public var finaleConfirmation: Confirmation?
        public var closeConfirmation: Confirmation?
        public var finaleOpen: Bool
        public var isOpen: Bool
        public var challengeForm: FormState
        public var pointsForm: FormState
        public var boundsForm: FormState
        public var paths: Paths
        /// The tracker, the reveal time, the book and party mode, as one section.
        public var bigDay: HTML = ""
        public init(
            celebrantJoined: Bool, invites: [InviteLink], challengePoints: Int, darePoints: Int, giftCosts: Int, unpricedGifts: Int,
            gifts: [GiftRow], challenges: [ChallengeRow], dares: [ChallengeRow], dareMin: Int, dareMax: Int, adjustments: [Line],
            reports: [Line], people: [OccasionScreens.Person], successors: [(id: String, name: String)], finaleOpen: Bool,
            isOpen: Bool, challengeForm: FormState, pointsForm: FormState, boundsForm: FormState, paths: Paths
        ) {
            self.paths = paths
            self.celebrantJoined = celebrantJoined
            self.invites = invites
            self.challengePoints = challengePoints
            self.darePoints = darePoints
            self.giftCosts = giftCosts
            self.unpricedGifts = unpricedGifts
            self.gifts = gifts
            self.challenges = challenges
            self.dares = dares
            self.dareMin = dareMin
            self.dareMax = dareMax
            self.adjustments = adjustments
            self.reports = reports
            self.people = people
            self.successors = successors
            self.finaleOpen = finaleOpen
            self.isOpen = isOpen
            self.challengeForm = challengeForm
            self.pointsForm = pointsForm
            self.boundsForm = boundsForm
        }
    }

    public static func render(context: PageContext, header: OccasionPage.Header, model: Model) -> HTML {
        let csrf = context.csrfToken
        let celebrant: HTML =
            model.celebrantJoined
            ? "<p class=\"card card--green\" role=\"status\">\(header.celebrantName) has joined as the celebrant.</p>"
            : "<p class=\"card card--pink callout\" role=\"status\"><strong>Waiting for \(header.celebrantName).</strong> Send them the celebrant link below; it works once.</p>"
        let invites = model.invites.map { invite -> HTML in
            """
            <div class="stack">\(InviteLinkCard.render(title: invite.title, link: invite.link, qrCode: invite.qrCode))
            \(invite.rotateConfirmation.map { Confirm.button("New link (the old one stops working)", action: invite.rotateAction, csrf: csrf, $0) } ?? "")</div>
            """
        }
        // A long page on a phone: jump links to each part, in page order.
        let sectionNav: HTML = """
            <nav class="host-nav" aria-label="Host panel sections"><ul class="host-nav__list">\
            \(sections.map { id, label in "<li><a class=\"host-nav__link\"\(attribute: "href", "#" + id)>\(label)</a></li>" as HTML })\
            </ul></nav>
            """
        return OccasionPage.render(
            title: "Host panel", context: context, header: header, tab: .host, livePath: header.paths.host,
            body: """
                <div class="stack host-panel">
                \(celebrant)
                \(sectionNav)
                <section class="stack" aria-labelledby="invites-heading"><h2 id="invites-heading">Invite links</h2>
                <div class="grid">\(invites)</div></section>
                \(model.bigDay)
                \(economy(model))
                \(giftsSection(model.gifts, csrf: csrf))
                \(challengesSection(model, csrf: csrf))
                \(daresSection(model, csrf: csrf))
                \(pointsSection(model, csrf: csrf))
                \(reportsSection(model.reports))
                \(peopleSection(model, csrf: csrf))
                \(occasionSection(model, csrf: csrf))
                </div>
                """)
    }

    /// The panel's parts as its navigation names them: (heading id, label).
    static let sections = [
        ("invites-heading", "Invites"), ("big-day-heading", "Big day"), ("economy-heading", "Economy"), ("host-gifts-heading", "Gifts"),
        ("host-challenges-heading", "Challenges"), ("host-dares-heading", "Dares"), ("points-heading", "Points"),
        ("reports-heading", "Reports"), ("host-people-heading", "People"), ("finale-heading", "Finale"),
    ]

    static func economy(_ model: Model) -> HTML {
        let earnable = model.challengePoints + model.darePoints
        var hints: [HTML] = []
        if model.giftCosts > 0 && model.challengePoints >= model.giftCosts {
            hints.append("<p class=\"hint-box\" role=\"note\">Your challenges alone already pay for every gift. Raise some prices (or lower challenge points) so the secret dares are needed too.</p>")
        } else if model.giftCosts > earnable {
            hints.append("<p class=\"hint-box\" role=\"note\">Gifts cost more than everything there is to earn: lower some prices or add challenges, or the celebrant can't unlock them all.</p>")
        }
        if model.unpricedGifts > 0 {
            hints.append("<p class=\"muted\">\(model.unpricedGifts) sent \(model.unpricedGifts == 1 ? "gift waits" : "gifts wait") for a price.</p>")
        }
        return """
            <section class="stack" aria-labelledby="economy-heading"><h2 id="economy-heading">The economy</h2>
            <dl class="economy">
            <div><dt>Challenge points</dt><dd>\(model.challengePoints)</dd></div>
            <div><dt>Dare points</dt><dd>\(model.darePoints)</dd></div>
            <div><dt>Gift costs</dt><dd>\(model.giftCosts)</dd></div>
            </dl>
            \(hints)
            </section>
            """
    }

    static func giftsSection(_ gifts: [GiftRow], csrf: String?) -> HTML {
        let rows = gifts.map { gift -> HTML in
            let price: HTML =
                gift.priceAction.map { action in
                    """
                    <form class="cluster price-form" method="post"\(attribute: "action", action) novalidate>
                    \(Layout.csrfField(csrf))
                    \(priceField("cost", label: "Cost", value: gift.cost, range: (1, 100_000), gift: gift))
                    \(priceField("position", label: "Order", value: gift.position, range: (0, 1000), gift: gift))
                    \(Button.primary(gift.stateLabel == "Waiting for a price" ? "Put on offer" : "Save", small: true))
                    </form>
                    """
                } ?? ""
            let unlock: HTML =
                gift.unlockAction.map { OccasionPage.action($0, csrf: csrf, button: Button.gold("Unlock now, free", small: true)) } ?? ""
            return """
                <li class="card stack host-gift">
                <p class="cluster"><strong>\(gift.kindLabel) from \(gift.giverName)</strong><span class="chip">\(gift.stateLabel)</span></p>
                <details><summary>Read it (you can't change it)</summary><div class="letter">\(gift.content)</div></details>
                \(price)
                <div class="cluster">\(unlock)\(gift.deleteConfirmation.map { Confirm.button(action: gift.deleteAction, csrf: csrf, $0) } ?? "")</div>
                </li>
                """
        }
        let body: HTML =
            gifts.isEmpty
            ? "<p class=\"muted\">No gifts sent yet. Contributors' drafts stay private until they send them.</p>"
            : "<ul class=\"stack\">\(rows)</ul>"
        return "<section class=\"stack\" aria-labelledby=\"host-gifts-heading\"><h2 id=\"host-gifts-heading\">Gifts</h2>\(body)</section>"
    }

    /// One number of a gift's price form, with its mistake beside it (wired
    /// like `FormField`'s: described by, invalid, announced as an error).
    static func priceField(_ name: String, label: String, value: String, range: (Int, Int), gift: GiftRow) -> HTML {
        let id = "\(name)-\(gift.id)"
        let error = gift.priceErrors[name]
        let errorID = "\(id)-error"
        let message: HTML = error.map {
            "<p class=\"field__error\"\(attribute: "id", errorID)><span class=\"visually-hidden\">Error: </span>\($0)</p>"
        } ?? ""
        // A number field cannot hold what was typed when it is not a number
        // ("lots"); a text field with the numeric keyboard can, so the
        // mistake stays in view beside its message.
        let isNumber = value.isEmpty || Int(value) != nil
        let kind: HTML =
            isNumber
            ? "type=\"number\"\(attribute: "min", String(range.0))\(attribute: "max", String(range.1))"
            : "type=\"text\" inputmode=\"numeric\""
        return """
            <div class="price-form__field"><label class="field__label"\(attribute: "for", id)>\(label)</label>\(message)\
            <input class="field__input field__input--short" \(kind)\(attribute: "name", name)\(attribute: "required", when: name == "cost")\(attribute: "id", id)\(attribute: "value", value)\(attribute: "aria-describedby", error == nil ? nil : errorID)\(attribute: "aria-invalid", error == nil ? nil : "true")\(attribute: "autofocus", when: error != nil && (name == "cost" || gift.priceErrors["cost"] == nil))></div>
            """
    }

    static func challengeRows(_ rows: [ChallengeRow], csrf: String?, bounds: (Int, Int)?) -> HTML {
        let items = rows.map { row -> HTML in
            let state: HTML = row.isCompleted ? "<span class=\"chip chip--done\">Done ✓</span>" : "<span class=\"chip chip--points\">\(OccasionPage.points(row.points))</span>"
            let edit: HTML = row.editURL.map { Button.link("Edit", href: $0, style: .secondary, small: true) } ?? ""
            let complete: HTML =
                row.completeAction.map { OccasionPage.action($0, csrf: csrf, button: Button.secondary("Mark done", small: true)) } ?? ""
            let points: HTML =
                row.pointsAction.map { action in
                    """
                    <form class="cluster" method="post"\(attribute: "action", action)>\(Layout.csrfField(csrf))
                    <label class="visually-hidden"\(attribute: "for", "dare-points-\(row.id)")>Points for \(row.title)</label>
                    <input class="field__input field__input--short" type="number" name="points" required\(attribute: "id", "dare-points-\(row.id)")\(attribute: "min", bounds.map { String($0.0) })\(attribute: "max", bounds.map { String($0.1) })\(attribute: "value", String(row.points))>
                    \(Button.secondary("Set points", small: true))</form>
                    """
                } ?? ""
            return """
                <li class="card stack"><p class="cluster"><a\(attribute: "href", row.url)>\(row.title)</a>\(state)</p>
                <p class="muted">\(row.detail)</p><div class="cluster">\(edit)\(complete)\(points)</div></li>
                """
        }
        return "<ul class=\"stack\">\(items)</ul>"
    }

    static func challengesSection(_ model: Model, csrf: String?) -> HTML {
        """
        <section class="stack" aria-labelledby="host-challenges-heading"><h2 id="host-challenges-heading">Challenges</h2>
        \(model.challenges.isEmpty ? "<p class=\"muted\">No challenges yet. Write the first below.</p>" as HTML : challengeRows(model.challenges, csrf: csrf, bounds: nil))
        <details class="card"\(attribute: "open", when: !model.challengeForm.errors.isEmpty || model.challenges.isEmpty)>
        <summary>Write a challenge</summary>
        <form class="stack" method="post"\(attribute: "action", model.paths.addChallenge) novalidate>
        \(Layout.csrfField(csrf))\(model.challengeForm.onceField)
        \(OccasionForms.challengeFields(form: model.challengeForm))
        \(Button.primary("Add challenge"))
        </form>
        </details>
        </section>
        """
    }

    static func daresSection(_ model: Model, csrf: String?) -> HTML {
        let form = model.boundsForm
        return """
            <section class="stack" aria-labelledby="host-dares-heading"><h2 id="host-dares-heading">Secret dares</h2>
            \(model.dares.isEmpty ? "<p class=\"muted\">No dares filed yet.</p>" as HTML : challengeRows(model.dares, csrf: csrf, bounds: (model.dareMin, model.dareMax)))
            <form class="stack card" method="post"\(attribute: "action", model.paths.dareBounds) novalidate>
            \(Layout.csrfField(csrf))
            \(form.summary(order: ["min", "max"]))
            <div class="grid grid--2">
            \(FormField.number(name: "min", label: "Fewest points a dare may be worth", value: form.values["min"] ?? String(model.dareMin), error: form.errors["min"], required: true, min: 1, max: 1000))
            \(FormField.number(name: "max", label: "Most points a dare may be worth", value: form.values["max"] ?? String(model.dareMax), error: form.errors["max"], required: true, min: 1, max: 1000))
            </div>
            \(Button.secondary("Save dare bounds", small: true))
            </form>
            </section>
            """
    }

    static func pointsSection(_ model: Model, csrf: String?) -> HTML {
        let form = model.pointsForm
        let audit: HTML =
            model.adjustments.isEmpty
            ? "<p class=\"muted\">No adjustments yet.</p>"
            : "<ul class=\"stack audit\">\(model.adjustments.map { "<li><strong>\($0.text)</strong> <span class=\"muted\">\($0.detail)</span></li>" as HTML })</ul>"
        return """
            <section class="stack" aria-labelledby="points-heading"><h2 id="points-heading">Adjust points</h2>
            <form class="stack card" method="post"\(attribute: "action", model.paths.adjust) novalidate>
            \(Layout.csrfField(csrf))\(form.onceField)
            \(form.summary(order: ["delta", "reason"]))
            <div class="grid grid--2">
            \(FormField.number(name: "delta", label: "Points to add (negative to take away)", value: form.values["delta"], error: form.errors["delta"], required: true, min: -100000, max: 100000))
            \(FormField.text(name: "reason", label: "Reason", value: form.values["reason"], hint: "Kept in the list below.", error: form.errors["reason"], required: true, maxLength: 200))
            </div>
            \(Button.secondary("Adjust points", small: true))
            </form>
            <h3>History</h3>
            \(audit)
            </section>
            """
    }

    static func reportsSection(_ reports: [Line]) -> HTML {
        let body: HTML =
            reports.isEmpty
            ? "<p class=\"muted\">No reports.</p>"
            : "<ul class=\"stack\">\(reports.map { "<li class=\"card\"><strong>\($0.text)</strong><p class=\"muted\">\($0.detail)</p></li>" as HTML })</ul>"
        return "<section class=\"stack\" aria-labelledby=\"reports-heading\"><h2 id=\"reports-heading\">Reports</h2>\(body)</section>"
    }

    static func peopleSection(_ model: Model, csrf: String?) -> HTML {
        let handOver: HTML =
            model.successors.isEmpty
            ? ""
            : """
            <form class="cluster card" method="post"\(attribute: "action", model.paths.handOver)>
            \(Layout.csrfField(csrf))
            \(FormField.select(name: "user", label: "Hand the host role to", options: model.successors.map { ($0.id, $0.name) }))
            \(Button.secondary("Make them host", small: true))
            </form>
            """
        return """
            <section class="stack" aria-labelledby="host-people-heading"><h2 id="host-people-heading">People</h2>
            \(OccasionScreens.roster(model.people, csrf: csrf))
            \(handOver)
            </section>
            """
    }

    static func occasionSection(_ model: Model, csrf: String?) -> HTML {
        let finale: HTML =
            model.finaleOpen
            ? "<p>The finale has happened: the badge is open.</p>"
            : "<form class=\"inline-form\" method=\"post\"\(attribute: "action", model.paths.finale)\(model.finaleConfirmation.map(Confirm.attributes))>\(Layout.csrfField(csrf))\(Button.gold("Call the finale now"))</form>"
        let openClose: HTML =
            model.isOpen
            ? model.closeConfirmation.map { Confirm.button("Close the occasion", action: model.paths.close, csrf: csrf, $0, small: false) } ?? ""
            : OccasionPage.action(model.paths.reopen, csrf: csrf, button: Button.secondary("Reopen the occasion"))
        return """
            <section class="stack" aria-labelledby="finale-heading"><h2 id="finale-heading">The finale</h2>
            <p class="muted">The badge opens by itself when every gift on offer is unlocked. You can open it early.</p>
            \(finale)
            <h2>Open or closed</h2>
            <p class="muted">A closed occasion can be read but not played; it moves to “Past”.</p>
            \(openClose)
            </section>
            """
    }
}
