import KithHTTP
import KithStorage
import KithTemplates

/// Occasions: creating one, its pages, and what its members do. Every route
/// under `/occasions/:occasion` starts with `context.load(OccasionScope.self)`,
/// so a non-member meets 404 before anything else happens; what a member may
/// do is asked of their role (`OccasionRole.can…`).
enum OccasionRoutes {
    static let newOccasion = Route(.get, "/occasions/new")
    static let create = Route(.post, "/occasions")
    static let overview = Route(.get, "/occasions/:occasion")
    static let board = Route(.get, "/occasions/:occasion/challenges")
    static let challenge = Route(.get, "/occasions/:occasion/challenges/:challenge")
    static let complete = Route(.post, "/occasions/:occasion/challenges/:challenge/complete")
    static let classified = Route(.get, "/occasions/:occasion/classified")
    static let openClassified = Route(.post, "/occasions/:occasion/classified/open")
    static let dare = Route(.get, "/occasions/:occasion/dare")
    static let saveDare = Route(.post, "/occasions/:occasion/dare")
    static let gift = Route(.get, "/occasions/:occasion/gift")
    // A letter may be long; only members reach its body (the head is admitted first).
    static let saveGift = Route(.post, "/occasions/:occasion/gift", body: .longForm)
    static let submitGift = Route(.post, "/occasions/:occasion/gift/submit")
    static let withdrawGift = Route(.post, "/occasions/:occasion/gift/withdraw")
    static let gifts = Route(.get, "/occasions/:occasion/gifts")
    static let showGift = Route(.get, "/occasions/:occasion/gifts/:gift")
    static let unlock = Route(.post, "/occasions/:occasion/gifts/:gift/unlock")
    static let timeline = Route(.get, "/occasions/:occasion/timeline")
    static let people = Route(.get, "/occasions/:occasion/people")
    static let report = Route(.post, "/occasions/:occasion/reports")

    static let stylesheets = ["css/occasions.css", "css/timeline.css", "css/reveal.css", "css/occasion-book.css"]
    static let scripts = ["js/occasions.js", "js/media.js", "js/reveal.js", "js/countdown.js"]

    /// The one live topic of an occasion; every page of it follows it.
    static func topic(_ id: Int64) -> String { LiveTopics.name("occasion", id) }
    /// The element every occasion page wraps its live content in.
    static let liveFragment = FragmentID.occasionLive

    static let contributorInvite = "occasion"
    static let celebrantInvite = "celebrant"

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(newOccasion) { context in
            let user = try context.requireUser()
            return newOccasionPage(context, FormState(values: ["host_name": user.displayName]))
        }
        Endpoint(create) { context in try createOccasion(&context) }
        Endpoint(overview) { context in try OccasionPages.overview(context) }
        Endpoint(board) { context in try OccasionPages.board(context) }
        Endpoint(challenge) { context in try OccasionPages.challenge(context, form: FormState()) }
        // A completion may carry a photo proof, so its body is an upload.
        let photoLimit = app.configuration.mediaLimits.photoBytes
        Endpoint(Route(.post, complete.pattern.description, body: .uploads(maxFileBytes: photoLimit, maxFiles: 1, acceptsURLEncoded: true))) { context in
            try OccasionActions.complete(context)
        }
        Endpoint(classified) { context in try OccasionPages.classified(context) }
        Endpoint(openClassified) { context in try OccasionActions.openClassified(context) }
        Endpoint(dare) { context in try OccasionPages.dare(context, form: nil) }
        Endpoint(saveDare) { context in try OccasionActions.saveDare(context) }
        Endpoint(gift) { context in try OccasionPages.ownGift(context, form: nil) }
        Endpoint(saveGift) { context in try OccasionActions.saveGift(context) }
        Endpoint(submitGift) { context in try OccasionActions.submitGift(context) }
        Endpoint(withdrawGift) { context in try OccasionActions.withdrawGift(context) }
        Endpoint(gifts) { context in try OccasionPages.gifts(context) }
        Endpoint(showGift) { context in try OccasionPages.gift(context) }
        Endpoint(unlock) { context in try OccasionActions.unlock(context) }
        Endpoint(timeline) { context in try OccasionPages.timeline(context) }
        Endpoint(people) { context in try OccasionPages.people(context) }
        Endpoint(report) { context in try OccasionActions.report(context) }
        HostRoutes.endpoints(app)
        OccasionMedia.endpoints(app)
        OccasionKeepsake.endpoints(app)
        OccasionThanks.endpoints(app)
        OccasionBook.endpoints(app)
        ScheduledReveal.endpoints(app)
        ContributorTracker.endpoints(app)
        PartyRoutes.endpoints(app)
    }

    // MARK: Creating

    static func newOccasionPage(_ context: RequestContext, _ form: FormState, status: HTTPStatus = .ok) -> Response {
        let kinds = OccasionKind.allCases.map { (value: $0.rawValue, label: $0.label) }
        var form = form
        form.onceToken = context.onceToken()
        return context.app.page(OccasionForms.newOccasion(context: context.pageContext(), form: form, kinds: kinds, action: create.path()), status: status)
    }

    static func createOccasion(_ context: inout RequestContext) throws -> Response {
        let user = try context.requireUser()
        let once = try context.onceForm()
        var reader = FormReader(context.request.form)
        let name = reader.line("name", label: "the occasion name", max: 80, required: true)
        let kind = reader.choice("kind", OccasionKind.self, message: "Choose what kind of occasion it is.")
        let celebrant = reader.line("celebrant_name", label: "the celebrant's name", max: 60, required: true)
        let date = reader.date("date")
        let hostName = reader.line("host_name", label: "your name", max: 60, required: true)
        guard reader.isValid, let name, let kind, let celebrant, let date, let hostName else {
            return newOccasionPage(context, reader.state, status: .unprocessableContent)
        }
        let app = context.app
        return .redirect(to: try app.database.write { tx in
            try once.run(tx) {
                let id = try OccasionStore.create(
                    tx, .init(name: name, kind: kind, celebrantName: celebrant, date: date, hostName: hostName), hostID: user.id, now: app.now)
                _ = try app.invites.issue(tx, kind: contributorInvite, targetID: id, createdBy: user.id, now: app.now)
                _ = try app.invites.issue(tx, kind: celebrantInvite, targetID: id, createdBy: user.id, now: app.now)
                return HostRoutes.panel.path(id)
            }
        })
    }

    static func preview(_ db: Connection, _ id: Int64, role: String) throws -> InvitePreview? {
        try OccasionStore.occasion(db, id: id).map {
            InvitePreview(
                name: $0.name, kindLabel: $0.kind.label.lowercased(), role: role,
                timeZoneHint: "Times in \($0.name) are shown in this zone.")
        }
    }

    /// What a link would do for this person, when it is not a join: the
    /// same answers `join` gives, asked before the button is offered.
    static func standing(_ db: some Queryable, _ id: Int64, _ userID: Int64?, role: OccasionRole) throws -> JoinOutcome? {
        guard let occasion = try OccasionStore.occasion(db, id: id) else { return .refused(message: "That occasion no longer exists.") }
        let home = overview.path(id)
        if let userID, let member = try OccasionStore.membership(db, occasionID: id, userID: userID) {
            if member.role == role {
                return .alreadyMember(redirect: home, message: "You're already in \(occasion.name).")
            }
            let yours = member.role == .celebrant ? "the celebrant" : "a \(member.role.label.lowercased())"
            let link = role == .celebrant ? "the celebrant link is for \(occasion.celebrantName)" : "that link is for contributors"
            return .alreadyMember(
                redirect: home, message: "You're already in \(occasion.name) as \(yours); \(link). Nothing changed.")
        }
        if role == .celebrant, try OccasionStore.hasCelebrant(db, occasionID: id) {
            return .refused(message: "This celebrant link has already been used. If that's wrong, ask the host for a new one.")
        }
        return nil
    }

    /// Joining by link. One role per person: a member opening either link is
    /// told where they stand and nothing changes; the celebrant link works
    /// for one person only.
    static func join(
        _ tx: Transaction, _ id: Int64, _ userID: Int64, _ app: KithApp, role: OccasionRole
    ) throws -> JoinOutcome {
        if let outcome = try standing(tx, id, userID, role: role) { return outcome }
        let code = try app.invites.code(tx, kind: role == .celebrant ? celebrantInvite : contributorInvite, targetID: id) ?? "link"
        _ = try OccasionStore.addMember(tx, occasionID: id, userID: userID, role: role, via: code, now: app.now)
        changed(tx, app, occasionID: id)
        return .joined(redirect: overview.path(id))
    }

    // MARK: Shared by the occasion's routes

    /// Tells every open page of the occasion to refetch, once committed.
    static func changed(_ tx: Transaction, _ app: KithApp, occasionID: Int64) {
        let live = app.live
        tx.afterCommit { live.publish(topic: topic(occasionID), fragments: [liveFragment]) }
    }

    static func header(_ scope: OccasionScope) -> OccasionPage.Header {
        let occasion = scope.occasion
        var header = OccasionPage.Header(
            id: occasion.id, name: occasion.name, kindLabel: occasion.kind.label, celebrantLabel: occasion.kind.celebrantLabel,
            celebrantName: occasion.celebrantName, date: TimeText.longDate(occasion.date), isoDate: occasion.date,
            roleLabel: scope.role == .celebrant ? occasion.kind.celebrantLabel : scope.role.label, balance: occasion.balance,
            isOpen: occasion.isOpen, isHost: scope.role.canManage, paths: paths(occasion.id))
        header.isCelebrant = scope.role == .celebrant
        return header
    }

    /// The occasion's pages, for its header and tabs.
    static func paths(_ id: Int64) -> OccasionPage.Paths {
        OccasionPage.Paths(
            overview: overview.path(id), challenges: board.path(id), classified: classified.path(id), gift: gift.path(id),
            dare: dare.path(id), gifts: gifts.path(id), timeline: timeline.path(id), people: people.path(id),
            host: HostRoutes.panel.path(id))
    }

    /// The page frame for an occasion page: its live topic (taken before the
    /// page reads its data) and the feature's stylesheet and script.
    static func frame(_ context: RequestContext, _ scope: OccasionScope, flash: [Flash] = []) -> PageContext {
        // A live refetch shows only the live region, never the frame's
        // badges, messages or theme: its form token is all it needs.
        if context.isFragmentRefresh {
            var frame = context.app.pageContext()
            frame.csrfToken = context.csrfToken
            frame.fragmentOnly = true
            return frame
        }
        var frame = context.pageContext(flash: flash, topics: [scope.topic])
        frame.stylesheets = stylesheets
        frame.scripts = scripts
        return frame
    }
}
