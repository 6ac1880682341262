/// The occasion's pages, each drawn from a model that holds only what its
/// viewer may see.
public enum OccasionScreens {
    // MARK: Overview

    public struct Overview: Sendable {
        public enum Status: Sendable { case none, draft, submitted, onOffer, unlocked, sealed, written }
        public var isCelebrant: Bool
        public var canContribute: Bool
        public var isHost: Bool
        public var celebrantJoined: Bool
        public var challengesOpen: Int
        public var challengesDone: Int
        public var sealedDares: Int
        public var giftsOnOffer: Int
        public var giftsUnlocked: Int
        public var giftStatus: Status
        public var dareStatus: Status
        public var memberCount: Int
        public init(
            isCelebrant: Bool, canContribute: Bool, isHost: Bool, celebrantJoined: Bool, challengesOpen: Int, challengesDone: Int,
            sealedDares: Int, giftsOnOffer: Int, giftsUnlocked: Int, giftStatus: Status, dareStatus: Status, memberCount: Int
        ) {
            self.isCelebrant = isCelebrant
            self.canContribute = canContribute
            self.isHost = isHost
            self.celebrantJoined = celebrantJoined
            self.challengesOpen = challengesOpen
            self.challengesDone = challengesDone
            self.sealedDares = sealedDares
            self.giftsOnOffer = giftsOnOffer
            self.giftsUnlocked = giftsUnlocked
            self.giftStatus = giftStatus
            self.dareStatus = dareStatus
            self.memberCount = memberCount
        }
    }

    public static func overview(context: PageContext, header: OccasionPage.Header, model: Overview) -> HTML {
        var cards: [HTML] = []
        if model.isHost && !model.celebrantJoined {
            cards.append("""
                <aside class="card card--pink callout" role="note"><p><strong>\(header.celebrantName) hasn't joined yet.</strong>
                Send them the celebrant link from the host panel.</p><p>\(Button.link("Open the host panel", href: header.paths.host, small: true))</p></aside>
                """)
        }
        if model.isCelebrant {
            cards.append(Card.render(
                title: "Challenges", accent: .purple,
                body: "<p>\(model.challengesOpen) to do, \(model.challengesDone) done. Every one earns points.</p>",
                footer: Button.link("Open the board", href: header.paths.challenges, small: true)))
            cards.append(Card.render(
                title: "Gifts", accent: .gold,
                body: "<p>\(model.giftsOnOffer) waiting, \(model.giftsUnlocked) unlocked.</p>",
                footer: Button.link("See your gifts", href: header.paths.gifts, style: .gold, small: true)))
        }
        if model.canContribute {
            let gift: String
            switch model.giftStatus {
            case .none: gift = "Not started yet."
            case .draft: gift = "A draft only you can see."
            case .submitted: gift = "With the host, waiting for a price."
            case .onOffer: gift = "On offer to \(header.celebrantName)."
            case .unlocked: gift = "Unlocked by \(header.celebrantName)!"
            default: gift = ""
            }
            cards.append(Card.render(
                title: "Your gift", accent: .gold, body: "<p>\(gift)</p>",
                footer: Button.link(model.giftStatus == .none ? "Write a gift" : "Open your gift", href: header.paths.gift, small: true)))
            let dare: String
            switch model.dareStatus {
            case .none: dare = "Write one classified dare for \(header.celebrantName) to find."
            case .sealed: dare = "Found by \(header.celebrantName). The file is sealed."
            default: dare = "Filed. Only you and the host can read it."
            }
            cards.append("""
                <article class="card card--dossier-teaser">
                <h2 class="card__title">Your secret dare</h2><p>\(dare)</p>
                <footer class="card__footer">\(Button.link(model.dareStatus == .none ? "Write your dare" : "Open the file", href: header.paths.dare, style: .secondary, small: true))</footer>
                </article>
                """)
        }
        let secret: HTML =
            model.isCelebrant
            ? "<p class=\"secret-entry\"><a\(attribute: "href", header.paths.classified) aria-label=\"Classified files: secret dares\">???</a></p>"
            : ""
        return OccasionPage.render(
            title: "Overview", context: context, header: header, tab: .overview, livePath: header.paths.overview,
            body: """
                <div class="grid">
                \(cards)
                </div>
                <p class="muted">\(model.memberCount) \(model.memberCount == 1 ? "person" : "people") in this occasion · <a\(attribute: "href", header.paths.timeline)>the timeline</a></p>
                \(secret)
                """)
    }

    // MARK: The challenge board

    public struct ChallengeItem: Sendable {
        public var id: Int64
        public var title: String
        public var optionB: String?
        public var points: Int
        public var difficulty: String
        public var difficultyLabel: String
        public var category: String
        public var categoryLabel: String
        public var isDare: Bool
        public var isCompleted: Bool
        public var url: String
        public init(
            id: Int64, title: String, optionB: String?, points: Int, difficulty: String, difficultyLabel: String, category: String,
            categoryLabel: String, isDare: Bool, isCompleted: Bool, url: String
        ) {
            self.id = id
            self.title = title
            self.optionB = optionB
            self.points = points
            self.difficulty = difficulty
            self.difficultyLabel = difficultyLabel
            self.category = category
            self.categoryLabel = categoryLabel
            self.isDare = isDare
            self.isCompleted = isCompleted
            self.url = url
        }
    }

    public static func board(
        context: PageContext, header: OccasionPage.Header, groups: [(label: String, items: [ChallengeItem])], showSecretEntry: Bool,
        newChallengeURL: String?
    ) -> HTML {
        let sections = groups.filter { !$0.items.isEmpty }.map { group -> HTML in
            "<section class=\"stack\"><h2>\(group.label)</h2><ul class=\"challenge-list\">\(group.items.map(challengeRow))</ul></section>"
        }
        let empty: HTML =
            sections.isEmpty
            ? EmptyState.render(
                title: "No challenges yet", message: "The host writes the challenges. They'll appear here as soon as there are some.",
                action: newChallengeURL.map { Button.link("Write a challenge", href: $0) })
            : ""
        let secret: HTML =
            showSecretEntry
            ? "<p class=\"secret-entry\"><a\(attribute: "href", header.paths.classified) aria-label=\"Classified files: secret dares\">???</a></p>"
            : ""
        return OccasionPage.render(
            title: "Challenges", context: context, header: header, tab: .challenges, livePath: header.paths.challenges,
            body: "\(empty)\(sections)\(secret)")
    }

    static func challengeRow(_ item: ChallengeItem) -> HTML {
        let state: HTML =
            item.isCompleted ? "<span class=\"chip chip--done\">Done ✓</span>" : OccasionPage.chip(OccasionPage.points(item.points), kind: "points")
        let twoInOne: HTML = item.optionB.map { "<span class=\"muted\"> or \($0)</span>" } ?? ""
        let classes = "challenge-row card" + (item.isCompleted ? " challenge-row--done" : "") + (item.isDare ? " challenge-row--dare" : "")
        return """
            <li\(attribute: "class", classes)>
            <a class="challenge-row__title"\(attribute: "href", item.url)>\(item.title)</a>\(twoInOne)
            <p class="cluster">\(state)\(chosenChips(item))</p>
            </li>
            """
    }

    /// A challenge's difficulty and category, which its host chose. A dare's
    /// author chooses neither (the columns hold defaults), so it shows none.
    static func chosenChips(_ item: ChallengeItem) -> HTML {
        guard !item.isDare else { return "" }
        return "\(OccasionPage.chip(item.difficultyLabel, kind: item.difficulty))\(OccasionPage.chip(item.categoryLabel, kind: "category"))"
    }

    // MARK: One challenge

    public struct ChallengeDetail: Sendable {
        public var item: ChallengeItem
        public var description: String
        /// "Completed with option B: …", "Proof: …".
        public var completion: [String]
        public var completeAction: String?
        public var reportAction: String
        /// The report form's one-time token: a report sent twice is filed once.
        public var reportOnce: String?
        public var editURL: String?
        public var form: FormState
        /// The photo proof, once completed with one.
        public var proof: HTML
        public init(
            item: ChallengeItem, description: String, completion: [String], completeAction: String?, reportAction: String,
            editURL: String?, form: FormState, proof: HTML = "", reportOnce: String? = nil
        ) {
            self.proof = proof
            self.reportOnce = reportOnce
            self.item = item
            self.description = description
            self.completion = completion
            self.completeAction = completeAction
            self.reportAction = reportAction
            self.editURL = editURL
            self.form = form
        }
    }

    public static func challenge(context: PageContext, header: OccasionPage.Header, model: ChallengeDetail) -> HTML {
        let item = model.item
        var complete: HTML = ""
        if let action = model.completeAction {
            let choice: HTML = item.optionB.map { optionB in
                let picked = model.form.values["option"] ?? "a"
                return """
                    <fieldset class="field stack"><legend class="field__label">Which one?</legend>
                    <label class="choice"><input type="radio" name="option" value="a"\(attribute: "checked", when: picked == "a")> Option A: \(item.title)</label>
                    <label class="choice"><input type="radio" name="option" value="b"\(attribute: "checked", when: picked == "b")> Option B: \(optionB)</label>
                    </fieldset>
                    """
            } ?? ""
            let proof = model.form.values["proof"] ?? "done"
            complete = """
                <section class="card stack" aria-labelledby="complete-heading">
                <h2 id="complete-heading">Done it?</h2>
                \(model.form.summary(order: ["option", "proof", "proof_text", "photo"]))
                <form class="stack" method="post" enctype="multipart/form-data"\(attribute: "action", action) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(choice)
                <fieldset class="field stack"><legend class="field__label">Proof</legend>
                <label class="choice"><input type="radio" name="proof" value="done"\(attribute: "checked", when: proof != "text")> Just done</label>
                <label class="choice"><input type="radio" name="proof" value="text"\(attribute: "checked", when: proof == "text")> A few words</label>
                <label class="choice"><input type="radio" name="proof" value="photo"\(attribute: "checked", when: proof == "photo")> A photo</label>
                </fieldset>
                \(FormField.textarea(name: "proof_text", label: "Your words (for a written proof, or a caption)", value: model.form.values["proof_text"], error: model.form.errors["proof_text"], maxLength: 2000, rows: 3))
                \(photoField(error: model.form.errors["photo"]))
                <div class="cluster">\(Button.gold("Complete for \(OccasionPage.points(item.points))"))</div>
                </form>
                </section>
                """
        }
        let done: HTML =
            model.completion.isEmpty
            ? ""
            : "<section class=\"card card--purple stack\"><h2>Completed</h2>\(model.completion.map { "<p>\($0)</p>" as HTML })\(model.proof)</section>"
        let edit: HTML = model.editURL.map { Button.link("Edit", href: $0, style: .secondary, small: true) } ?? ""
        let body: HTML = """
            <article class="stack challenge-detail">
            <h2>\(item.title)</h2>
            \(item.optionB.map { "<p class=\"muted\">or Option B: \($0)</p>" as HTML } ?? "")
            <p class="cluster">\(OccasionPage.chip(OccasionPage.points(item.points), kind: "points"))\(chosenChips(item))</p>
            <div class="prose">\(Markdown.render(model.description))</div>
            \(edit)
            </article>
            \(done)\(complete)
            \(reportForm(model.reportAction, csrf: context.csrfToken, once: model.reportOnce, subject: "challenge"))
            """
        return OccasionPage.render(
            title: item.title, context: context, header: header, tab: .challenges, livePath: nil,
            body: item.isDare ? Dossier.render(title: "Secret dare", stamp: "Classified", body: body) : body)
    }

    /// The photo proof: the phone's camera where there is one.
    static func photoField(error: String?) -> HTML {
        let id = FormField.id(for: "photo")
        let errorPart: HTML = error.map { "<p class=\"field__error\"\(attribute: "id", id + "-error")><span class=\"visually-hidden\">Error: </span>\($0)</p>" } ?? ""
        return """
            <div class="field stack stack--tight">
            <label class="field__label"\(attribute: "for", id)>Your photo (for a photo proof)</label>
            \(errorPart)<input class="field__input"\(attribute: "id", id) type="file" name="photo" accept="image/jpeg,image/png,image/gif,image/webp,image/heic,image/heif" capture="environment"\(attribute: "aria-invalid", error == nil ? nil : "true")\(attribute: "aria-describedby", error == nil ? nil : id + "-error")>
            </div>
            """
    }

    static func reportForm(_ action: String, csrf: String?, once: String?, subject: String) -> HTML {
        """
        <details class="report">
        <summary>Report this \(subject)</summary>
        <form class="stack" method="post"\(attribute: "action", action)>
        \(Layout.csrfField(csrf))\(FormState(onceToken: once).onceField)
        \(FormField.textarea(name: "reason", label: "What's wrong? (optional)", hint: "Only the host will see this.", maxLength: 500, rows: 3))
        \(Button.secondary("Send report", small: true))
        </form>
        </details>
        """
    }

    // MARK: Classified

    public static func classified(
        context: PageContext, header: OccasionPage.Header, dares: [ChallengeItem], sealedCount: Int, openAction: String?,
        intro: String
    ) -> HTML {
        let open: HTML =
            openAction.map { action in
                sealedCount > 0
                    ? """
                    <p class="dossier__meta">\(sealedCount) sealed \(sealedCount == 1 ? "file" : "files") waiting.</p>
                    \(OccasionPage.action(action, csrf: context.csrfToken, button: Button.danger("Break the seal")))
                    """
                    : ""
            } ?? ""
        // Sealed files are files: "No files yet" is only for when there are none at all.
        let list: HTML =
            !dares.isEmpty
            ? "<ul class=\"challenge-list\">\(dares.map(challengeRow))</ul>"
            : sealedCount == 0
                ? "<p class=\"dossier__meta\">No files yet.</p>"
                : openAction == nil ? "<p class=\"dossier__meta\">\(sealedCount) sealed \(sealedCount == 1 ? "file" : "files").</p>" : ""
        return OccasionPage.render(
            title: "Classified", context: context, header: header, tab: nil, livePath: header.paths.classified,
            body: Dossier.render(title: "Classified files", stamp: "Top secret", body: "<p class=\"dossier__meta\">\(intro)</p>\(open)\(list)"))
    }

    // MARK: Gifts

    public struct GiftListItem: Sendable {
        public var giverName: String
        public var kindLabel: String
        public var stateLabel: String
        public var url: String?
        public init(giverName: String, kindLabel: String, stateLabel: String, url: String?) {
            self.giverName = giverName
            self.kindLabel = kindLabel
            self.stateLabel = stateLabel
            self.url = url
        }
    }

    /// The celebrant gets the carousel; everyone else a list of who gave
    /// what kind of gift and where it stands, without the content.
    public static func gifts(
        context: PageContext, header: OccasionPage.Header, carousel: [GiftCardView]?, list: [GiftListItem], ownGiftURL: String?
    ) -> HTML {
        var body: HTML
        if let carousel {
            body = GiftCarousel.render(cards: carousel, balance: header.balance, csrfToken: context.csrfToken)
        } else if list.isEmpty {
            body = EmptyState.render(title: "No gifts on offer yet", message: "Gifts appear here once their authors send them and the host prices them.")
        } else {
            let rows = list.map { item -> HTML in
                let name: HTML = item.url.map { "<a\(attribute: "href", $0)>\(item.kindLabel) from \(item.giverName)</a>" } ?? "\(item.kindLabel) from \(item.giverName)"
                return "<li class=\"card cluster gift-row\"><span>\(name)</span><span class=\"chip\">\(item.stateLabel)</span></li>"
            }
            body = "<ul class=\"stack gift-list\">\(rows)</ul>"
        }
        if let ownGiftURL {
            body = "\(body)<p>\(Button.link("Your own gift", href: ownGiftURL, style: .secondary, small: true))</p>"
        }
        return OccasionPage.render(
            title: "Gifts", context: context, header: header, tab: .gifts, livePath: header.paths.gifts, body: body,
            showsBalance: carousel == nil)
    }

    /// One gift: the celebrant's card, or for its author and the host the
    /// content itself with where it stands.
    public static func gift(
        context: PageContext, header: OccasionPage.Header, path: String, title: String, card: GiftCardView?, content: HTML?,
        note: String?, reportAction: String, reportOnce: String? = nil, responses: HTML = ""
    ) -> HTML {
        let shown: HTML =
            card.map { card in
                // On its own page the card's "open it" link would lead back here.
                var card = card
                if card.detailURL == path { card.detailURL = "" }
                return GiftCarousel.render(cards: [card], balance: header.balance, csrfToken: context.csrfToken)
            }
            ?? "<article class=\"card stack\" data-gift-content>\(content)</article>\(responses)"
        return OccasionPage.render(
            title: title, context: context, header: header, tab: .gifts, livePath: path,
            body: """
                <h2>\(title)</h2>
                \(note.map { "<p class=\"muted\">\($0)</p>" as HTML } ?? "")
                \(shown)
                \(reportForm(reportAction, csrf: context.csrfToken, once: reportOnce, subject: "gift"))
                """, showsBalance: card == nil)
    }

    // MARK: Timeline and people

    public static func timeline(context: PageContext, header: OccasionPage.Header, view: TimelineView, keepsakeURL: String? = nil) -> HTML {
        let keepsake: HTML =
            keepsakeURL.map {
                "<p class=\"keepsake-link\">\(Button.link("Download the keepsake (.zip)", href: $0, style: .secondary, small: true)) <span class=\"muted\">The whole occasion as a page that opens in any browser, offline.</span></p>"
            } ?? ""
        return OccasionPage.render(
            title: "Timeline", context: context, header: header, tab: .timeline, livePath: header.paths.timeline,
            body: "\(Timeline.render(view))\(keepsake)")
    }

    public struct Person: Sendable {
        public var name: String
        public var avatarURL: String
        public var roleLabel: String
        /// For the host only: "Joined 3 days ago with code K7M2QX".
        public var joinDetails: String?
        public var removeAction: String?
        /// What removing them would do; without it the server asks on its own page.
        public var removeConfirmation: Confirmation?
        public init(name: String, avatarURL: String, roleLabel: String, joinDetails: String?, removeAction: String?) {
            self.name = name
            self.avatarURL = avatarURL
            self.roleLabel = roleLabel
            self.joinDetails = joinDetails
            self.removeAction = removeAction
        }
    }

    public static func roster(_ people: [Person], csrf: String?) -> HTML {
        let rows = people.map { person -> HTML in
            let details: HTML = person.joinDetails.map { "<span class=\"muted roster__details\">\($0)</span>" } ?? ""
            let remove: HTML =
                person.removeAction.map {
                    """
                    <form class="inline-form" method="post"\(attribute: "action", $0)\(person.removeConfirmation.map(Confirm.attributes))>\
                    \(Layout.csrfField(csrf))\(Button.render("Remove \(person.name)", style: .danger, small: true))</form>
                    """
                } ?? ""
            return """
                <li class="roster__person cluster"><img class="avatar"\(attribute: "src", person.avatarURL) alt="" width="40" height="40">
                <span class="stack stack--tight"><strong>\(person.name)</strong><span class="chip">\(person.roleLabel)</span>\(details)</span>\(remove)</li>
                """
        }
        return "<ul class=\"roster stack\">\(rows)</ul>"
    }

    public static func people(context: PageContext, header: OccasionPage.Header, people: [Person]) -> HTML {
        OccasionPage.render(
            title: "People", context: context, header: header, tab: .people, livePath: header.paths.people,
            body: "<section class=\"stack\" aria-labelledby=\"people-heading\"><h2 id=\"people-heading\">Who's here</h2>\(roster(people, csrf: context.csrfToken))</section>")
    }

    // MARK: Dashboard

    public struct ListItem: Sendable {
        public var name: String
        public var url: String
        public var detail: String
        public var roleLabel: String
        public var isOpen: Bool
        public init(name: String, url: String, detail: String, roleLabel: String, isOpen: Bool) {
            self.name = name
            self.url = url
            self.detail = detail
            self.roleLabel = roleLabel
            self.isOpen = isOpen
        }
    }

    public static func dashboardSection(_ items: [ListItem], newOccasion: String) -> HTML {
        let active = items.filter(\.isOpen)
        let past = items.filter { !$0.isOpen }
        func list(_ items: [ListItem]) -> HTML {
            let rows = items.map { item -> HTML in
                "<li class=\"card occasion-row\"><a class=\"occasion-row__name\"\(attribute: "href", item.url)>\(item.name)</a><p class=\"muted\">\(item.detail)</p><span class=\"chip\">\(item.roleLabel)</span></li>"
            }
            return "<ul class=\"stack occasion-list\">\(rows)</ul>"
        }
        let body: HTML =
            items.isEmpty
            ? EmptyState.render(
                title: "No occasions yet", message: "Celebrations you host or join will appear here.",
                action: Button.link("Create an occasion", href: newOccasion, small: true), headingLevel: 3)
            : """
            \(active.isEmpty ? "" : list(active))
            \(past.isEmpty ? "" : "<h3>Past</h3>\(list(past))" as HTML)
            <p>\(Button.link("Create an occasion", href: newOccasion, style: .secondary, small: true))</p>
            """
        return "<section class=\"stack\" aria-labelledby=\"occasions-heading\"><h2 id=\"occasions-heading\">Occasions</h2>\(body)</section>"
    }
}
