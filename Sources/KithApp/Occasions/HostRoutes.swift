import KithHTTP
import KithStorage
import KithTemplates

/// The host panel and everything only the host does. Every route loads the
/// scope (404 for outsiders) and then asks `canManage` (403 for members).
enum HostRoutes {
    static let panel = Route(.get, "/occasions/:occasion/host")
    static let addChallenge = Route(.post, "/occasions/:occasion/host/challenges")
    static let editChallenge = Route(.get, "/occasions/:occasion/host/challenges/:challenge")
    static let updateChallenge = Route(.post, "/occasions/:occasion/host/challenges/:challenge")
    static let deleteChallenge = Route(.post, "/occasions/:occasion/host/challenges/:challenge/delete")
    static let forceComplete = Route(.post, "/occasions/:occasion/host/challenges/:challenge/complete")
    static let darePoints = Route(.post, "/occasions/:occasion/host/challenges/:challenge/points")
    static let dareBounds = Route(.post, "/occasions/:occasion/host/dare-bounds")
    static let price = Route(.post, "/occasions/:occasion/host/gifts/:gift/price")
    static let deleteGift = Route(.post, "/occasions/:occasion/host/gifts/:gift/delete")
    static let forceUnlock = Route(.post, "/occasions/:occasion/host/gifts/:gift/unlock")
    static let adjust = Route(.post, "/occasions/:occasion/host/points")
    static let finale = Route(.post, "/occasions/:occasion/host/finale")
    static let close = Route(.post, "/occasions/:occasion/host/close")
    static let reopen = Route(.post, "/occasions/:occasion/host/reopen")
    static let handOver = Route(.post, "/occasions/:occasion/host/handover")
    static let remove = Route(.post, "/occasions/:occasion/host/members/:member/remove")
    static let rotate = Route(.post, "/occasions/:occasion/host/invites/:invite/rotate")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(panel) { context in try render(context) }
        Endpoint(addChallenge) { context in try addChallenge(context) }
        Endpoint(editChallenge) { context in try editChallengePage(context, form: nil) }
        Endpoint(updateChallenge) { context in try updateChallenge(context) }
        Endpoint(deleteChallenge) { context in try deleteChallenge(context) }
        Endpoint(forceComplete) { context in try forceComplete(context) }
        Endpoint(darePoints) { context in try darePoints(context) }
        Endpoint(dareBounds) { context in try dareBounds(context) }
        Endpoint(price) { context in try price(context) }
        Endpoint(deleteGift) { context in try deleteGift(context) }
        Endpoint(forceUnlock) { context in try forceUnlock(context) }
        Endpoint(adjust) { context in try adjust(context) }
        Endpoint(finale) { context in try callFinale(context) }
        Endpoint(close) { context in try setOpen(context, false) }
        Endpoint(reopen) { context in try setOpen(context, true) }
        Endpoint(handOver) { context in try handOver(context) }
        Endpoint(remove) { context in try remove(context) }
        Endpoint(rotate) { context in try rotate(context) }
    }

    /// The scope, for the host only.
    static func host(_ context: RequestContext) throws -> OccasionScope {
        let scope = try context.load(OccasionScope.self, parameter: "occasion")
        try scope.require(\.canManage, "Only the host can do that.")
        return scope
    }

    /// Runs a host action in one write transaction, tells open pages, and
    /// returns to the panel (or `back`).
    static func act(
        _ context: RequestContext, open: Bool = false, back: String? = nil, notice: String = "saved",
        _ change: (Transaction, OccasionScope) throws -> Void
    ) throws -> Response {
        let scope = try host(context)
        if open { try scope.requireOpen() }
        let app = context.app
        try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            try scope.require(\.canManage, "Only the host can do that.")
            try change(tx, scope)
            OccasionRoutes.changed(tx, app, occasionID: scope.id)
        }
        return try OccasionActions.redirect(context, back ?? panel.path(scope.id), notice: notice)
    }

    // MARK: The panel

    struct Forms {
        var challenge = FormState()
        var points = FormState()
        var bounds = FormState()
        /// A price form sent back with its mistake, beside that gift.
        var price: (giftID: Int64, state: FormState)?
        var reveal = FormState()
    }

    static func render(_ context: RequestContext, forms: Forms = Forms(), status: HTTPStatus = .ok) throws -> Response {
        _ = try host(context)
        var forms = forms
        forms.challenge.onceToken = context.onceToken()
        forms.points.onceToken = context.onceToken()
        let app = context.app
        let zone = context.user?.timeZone ?? "UTC"
        let (scope, frame, model) = try OccasionPages.prepare(context) { db, scope -> HostPanel.Model in
            let members = try OccasionStore.members(db, occasionID: scope.id)
            let names = Dictionary(members.map { ($0.userID, $0.displayName) }, uniquingKeysWith: { first, _ in first })
            let economy = try OccasionStore.economy(db, occasionID: scope.id)
            let invites = try [(OccasionRoutes.contributorInvite, "Contributor link"), (OccasionRoutes.celebrantInvite, "Celebrant link")]
                .compactMap { kind, title -> HostPanel.InviteLink? in
                    guard let code = try app.invites.code(db, kind: kind, targetID: scope.id) else { return nil }
                    let link = app.baseURL + InviteRoutes.preview.path(code)
                    return HostPanel.InviteLink(
                        title: title, link: link, qrCode: QRCode.svg(for: link, label: "QR code for the \(title.lowercased())"),
                        rotateAction: rotate.path(scope.id, kind),
                        rotateConfirmation: InviteCodes.rotateConfirmation("a new \(title.lowercased())", code: code))
                }
            // Every list the rows need, read once: a query per gift or per
            // member would make a busy occasion's panel slower with each.
            let allGifts = try OccasionStore.gifts(db, occasionID: scope.id)
            let media = Dictionary(grouping: try OccasionMediaStore.items(db, occasionID: scope.id), by: \.giftID)
            let challenges = try OccasionStore.challenges(db, occasionID: scope.id, kind: .challenge)
            let dares = try OccasionStore.challenges(db, occasionID: scope.id, kind: .dare)
            let gifts = allGifts.filter { $0.state != .draft }.map { gift in
                let items = media[gift.id] ?? []
                let giver = FormerMember.name(names[gift.authorID], startsSentence: true)
                var row = HostPanel.GiftRow(
                    id: gift.id, giverName: giver, kindLabel: gift.kind.label,
                    stateLabel: gift.state == .submitted ? "Waiting for a price" : gift.state == .onOffer ? "On offer" : "Unlocked",
                    content: OccasionPages.giftContent(
                        gift, items: items, giver: giver, occasionID: scope.id, csrf: nil),
                    cost: gift.cost.map(String.init) ?? "", position: String(gift.position),
                    priceAction: gift.state == .unlocked ? nil : price.path(scope.id, gift.id),
                    unlockAction: gift.state == .onOffer && scope.occasion.isOpen ? forceUnlock.path(scope.id, gift.id) : nil,
                    deleteAction: deleteGift.path(scope.id, gift.id))
                // Paid for with the celebrant's points: it stays, so no button.
                row.deleteConfirmation = gift.state == .unlocked ? nil : deleteGiftConfirmation(gift: gift, giver: giver, files: items.count)
                if let sent = forms.price, sent.giftID == gift.id {
                    row.cost = sent.state.values["cost"] ?? row.cost
                    row.position = sent.state.values["position"] ?? row.position
                    row.priceErrors = sent.state.errors
                }
                return row
            }
            func row(_ challenge: Challenge) -> HostPanel.ChallengeRow {
                let author = challenge.authorID.flatMap { names[$0] }
                let detail =
                    challenge.kind == .dare
                    ? "Dare by \(FormerMember.name(author)) · \(challenge.discoveredAt == nil ? "sealed" : "found")"
                    : "\(challenge.difficulty.label) · \(challenge.category.label)\(challenge.optionB.map { " · or \($0)" } ?? "")"
                let open = scope.occasion.isOpen && !challenge.isCompleted
                return HostPanel.ChallengeRow(
                    id: challenge.id, title: challenge.title, detail: detail, points: challenge.points, isCompleted: challenge.isCompleted,
                    url: OccasionRoutes.challenge.path(scope.id, challenge.id),
                    editURL: challenge.kind == .challenge && !challenge.isCompleted ? editChallenge.path(scope.id, challenge.id) : nil,
                    completeAction: open ? forceComplete.path(scope.id, challenge.id) : nil,
                    pointsAction: challenge.kind == .dare && !challenge.isCompleted ? darePoints.path(scope.id, challenge.id) : nil)
            }
            let adjustments = try OccasionStore.adjustments(db, occasionID: scope.id).map { entry in
                HostPanel.Line(
                    text: "\(entry.delta > 0 ? "+" : "")\(entry.delta) · \(entry.reason)",
                    detail: "\(FormerMember.name(entry.actorName, startsSentence: true)), \(TimeText.local(entry.at, zone: zone).human)")
            }
            let reports = try OccasionStore.reports(db, occasionID: scope.id).map { report in
                HostPanel.Line(
                    text: "\(report.subjectKind == "gift" ? "Gift" : "Challenge"): \(report.subjectTitle ?? "(removed)")",
                    detail: "\(report.reason.isEmpty ? "No reason given" : "“\(report.reason)”") — \(FormerMember.name(report.reporterName)), \(TimeText.local(report.at, zone: zone).human)")
            }
            var people = OccasionPages.persons(members, scope: scope, app: app, zone: zone)
            for (index, member) in members.enumerated() where people[index].removeAction != nil {
                people[index].removeConfirmation = removeConfirmation(scope: scope, member: member, gifts: allGifts, challenges: challenges, dares: dares)
            }
            var model = HostPanel.Model(
                celebrantJoined: members.contains { $0.role == .celebrant }, invites: invites,
                challengePoints: economy.challengePoints, darePoints: economy.darePoints, giftCosts: economy.giftCosts,
                unpricedGifts: economy.unpricedGifts, gifts: gifts,
                challenges: challenges.map(row), dares: dares.map(row),
                dareMin: scope.occasion.dareMinPoints, dareMax: scope.occasion.dareMaxPoints, adjustments: adjustments, reports: reports,
                people: people,
                successors: members.filter { $0.role == .contributor }.map { (String($0.userID), $0.displayName) },
                finaleOpen: scope.occasion.finaleAt != nil, isOpen: scope.occasion.isOpen,
                challengeForm: forms.challenge, pointsForm: forms.points, boundsForm: forms.bounds,
                paths: HostPanel.Paths(
                    addChallenge: addChallenge.path(scope.id), dareBounds: dareBounds.path(scope.id), adjust: adjust.path(scope.id),
                    handOver: handOver.path(scope.id), finale: finale.path(scope.id), close: close.path(scope.id),
                    reopen: reopen.path(scope.id)))
            model.finaleConfirmation = finaleConfirmation(gifts: allGifts)
            model.closeConfirmation = closeConfirmation(scope)
            model.bigDay = HostBigDay.render(
                try ContributorTracker.hostSection(db, scope: scope, app: app, zone: zone, form: forms.reveal), csrf: context.csrfToken)
            return model
        }
        return app.page(HostPanel.render(context: frame, header: OccasionRoutes.header(scope), model: model), status: status)
    }

    // MARK: Challenges

    static func readChallenge(_ form: FormData) -> (OccasionStore.ChallengeFields?, FormState) {
        var reader = FormReader(form)
        let title = reader.line("title", label: "the challenge", max: 120, required: true)
        let description = reader.text("description", label: "the details", max: 4000)
        let optionB = reader.line("option_b", label: "option B", max: 120)
        let points = reader.integer("points", label: "the points", range: 1...1000)
        let difficulty = reader.choice("difficulty", ChallengeDifficulty.self, message: "Choose easy, medium or hard.")
        let category = reader.choice("category", ChallengeCategory.self, message: "Choose a category.")
        guard reader.isValid, let title, let points, let difficulty, let category else { return (nil, reader.state) }
        return (.init(title: title, description: description, optionB: optionB, points: points, difficulty: difficulty, category: category), reader.state)
    }

    static func addChallenge(_ context: RequestContext) throws -> Response {
        _ = try host(context)
        let once = try context.onceForm()
        let (fields, state) = readChallenge(context.request.form)
        guard let fields else { return try render(context, forms: Forms(challenge: state), status: .unprocessableContent) }
        return try act(context) { tx, scope in
            _ = try once.run(tx) {
                _ = try OccasionStore.addChallenge(tx, occasionID: scope.id, fields, now: context.app.now)
                return panel.path(scope.id)
            }
        }
    }

    static func challenge(_ context: RequestContext, _ scope: OccasionScope) throws -> Challenge {
        let id = try context.request.parameter("challenge", as: Int64.self)
        guard let challenge = try context.app.database.read({ try OccasionStore.challenge($0, occasionID: scope.id, id: id) })
        else { throw HTTPError.notFound() }
        return challenge
    }

    static func editChallengePage(_ context: RequestContext, form: FormState?, status: HTTPStatus = .ok) throws -> Response {
        let scope = try host(context)
        let challenge = try challenge(context, scope)
        guard challenge.kind == .challenge else { throw HTTPError.notFound() }
        guard !challenge.isCompleted else {
            throw HTTPError(.conflict, "That challenge is done, so it stays as it was completed.")
        }
        let state =
            form
            ?? FormState(values: [
                "title": challenge.title, "description": challenge.description, "option_b": challenge.optionB ?? "",
                "points": String(challenge.points), "difficulty": challenge.difficulty.rawValue, "category": challenge.category.rawValue,
            ])
        let frame = OccasionRoutes.frame(context, scope)
        return context.app.page(
            OccasionForms.editChallenge(
                context: frame, header: OccasionRoutes.header(scope), form: state, action: updateChallenge.path(scope.id, challenge.id),
                deleteAction: deleteChallenge.path(scope.id, challenge.id), deleteConfirmation: deleteChallengeConfirmation(challenge)),
            status: status)
    }

    static func updateChallenge(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        let target = try challenge(context, scope)
        let (fields, state) = readChallenge(context.request.form)
        guard let fields else { return try editChallengePage(context, form: state, status: .unprocessableContent) }
        return try act(context) { tx, scope in
            guard try OccasionStore.updateChallenge(tx, occasionID: scope.id, id: target.id, fields) else {
                throw HTTPError(.conflict, "That challenge was completed meanwhile, so it stays as it was completed.")
            }
        }
    }

    static func deleteChallenge(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        let target = try challenge(context, scope)
        // A done or a guest's challenge is refused below; only a deletable one is asked about.
        if target.kind == .challenge, !target.isCompleted,
            let page = context.unconfirmed(deleteChallengeConfirmation(target), cancel: editChallenge.path(scope.id, target.id))
        {
            return page
        }
        return try act(context) { tx, scope in
            guard try OccasionStore.deleteChallenge(tx, occasionID: scope.id, id: target.id) else {
                throw HTTPError(.conflict, "Only a host challenge that isn't done yet can be deleted.")
            }
        }
    }

    static func forceComplete(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        let target = try challenge(context, scope)
        return try act(context, open: true, notice: "completed") { tx, scope in
            _ = try OccasionStore.complete(
                tx, occasionID: scope.id, challengeID: target.id, proof: .init(option: nil, kind: "host", text: nil), byHost: true,
                now: context.app.now)
        }
    }

    static func darePoints(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        let target = try challenge(context, scope)
        guard target.kind == .dare else { throw HTTPError.notFound() }
        var reader = FormReader(context.request.form)
        guard let points = reader.integer("points", label: "the points", range: scope.occasion.dareMinPoints...scope.occasion.dareMaxPoints)
        else { throw HTTPError(.unprocessableContent, reader.state.errors["points"] ?? "Enter the points.") }
        return try act(context) { tx, scope in
            guard try OccasionStore.setDarePoints(tx, occasionID: scope.id, id: target.id, points: points) else {
                throw HTTPError(.conflict, "That dare is done, so its points stay as they were.")
            }
        }
    }

    static func dareBounds(_ context: RequestContext) throws -> Response {
        _ = try host(context)
        var reader = FormReader(context.request.form)
        let low = reader.integer("min", label: "the fewest points", range: 1...1000)
        let high = reader.integer("max", label: "the most points", range: 1...1000)
        if let low, let high, high < low { reader.fail("max", "The most must be at least the fewest (\(low)).") }
        guard reader.isValid, let low, let high else {
            return try render(context, forms: Forms(bounds: reader.state), status: .unprocessableContent)
        }
        return try act(context) { tx, scope in try OccasionStore.setDareBounds(tx, occasionID: scope.id, min: low, max: high) }
    }

    // MARK: Gifts

    static func gift(_ context: RequestContext, _ scope: OccasionScope) throws -> Gift {
        let id = try context.request.parameter("gift", as: Int64.self)
        // A draft is its author's alone: to the host it does not exist.
        guard let gift = try context.app.database.read({ try OccasionStore.gift($0, occasionID: scope.id, id: id) }), gift.state != .draft
        else { throw HTTPError.notFound() }
        return gift
    }

    static func price(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        let target = try gift(context, scope)
        var reader = FormReader(context.request.form)
        let cost = reader.integer("cost", label: "the cost", range: 1...100_000)
        let position = (context.request.form["position"] ?? "").isEmpty ? target.position : reader.integer("position", label: "the order", range: 0...1000)
        guard reader.isValid, let cost, let position else {
            var state = reader.state
            // An order left empty keeps the gift's place; show that, not a blank.
            if state.values["position"] == nil { state.values["position"] = context.request.form["position"] ?? "" }
            return try render(context, forms: Forms(price: (target.id, state)), status: .unprocessableContent)
        }
        return try act(context) { tx, scope in
            guard try OccasionStore.price(tx, occasionID: scope.id, giftID: target.id, cost: cost, position: position) else {
                throw HTTPError(.conflict, "That gift is already unlocked, so its price stays.")
            }
            if target.state == .submitted {
                let giver = FormerMember.name(try OccasionStore.membership(tx, occasionID: scope.id, userID: target.authorID)?.displayName)
                // A person named as the subject is marked like an actor, so the inbox follows a later deletion.
                try OccasionNews.tell(
                    tx, context.app, kind: OccasionNews.onOffer, scope: scope, subject: FormerMember.marked(userID: target.authorID, name: giver),
                    roles: [.celebrant],
                    link: OccasionRoutes.gifts.path(scope.id))
            }
        }
    }

    static func deleteGift(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        let target = try gift(context, scope)
        guard target.state != .unlocked else { throw unlockedGiftStays(scope) }
        let confirmation = try context.app.database.read { db in
            let giver = FormerMember.name(
                try OccasionStore.membership(db, occasionID: scope.id, userID: target.authorID)?.displayName, startsSentence: true)
            return try deleteGiftConfirmation(db, gift: target, giver: giver)
        }
        if let page = context.unconfirmed(confirmation, cancel: panel.path(scope.id)) { return page }
        return try act(context) { tx, scope in
            // Unlocked between the page and this request: it stays, as above.
            // (Already deleted by an earlier press: nothing more to do.)
            if try !OccasionStore.deleteGift(tx, occasionID: scope.id, giftID: target.id),
                try OccasionStore.gift(tx, occasionID: scope.id, id: target.id)?.state == .unlocked
            {
                throw unlockedGiftStays(scope)
            }
            try context.app.media.collectGarbage(tx)
        }
    }

    static func unlockedGiftStays(_ scope: OccasionScope) -> HTTPError {
        HTTPError(
            .conflict,
            "\(scope.occasion.celebrantName) has unlocked this gift with their points, so it stays on the occasion and can't be deleted.")
    }

    static func forceUnlock(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        let target = try gift(context, scope)
        let response = try act(context, open: true, notice: "unlocked") { tx, scope in
            try ScheduledReveal.requireRevealed(scope, now: context.app.now)
            let outcome = try OccasionStore.unlock(tx, occasionID: scope.id, giftID: target.id, byHost: true, now: context.app.now)
            switch outcome {
            case .unlocked: try OccasionActions.unlocked(tx, context.app, scope: scope, gift: target)
            case .alreadyUnlocked: break
            case .notOnOffer, .insufficient: throw HTTPError(.conflict, "Put the gift on offer (give it a price) before unlocking it.")
            }
        }
        GiftReveal.tellGiverNow(context.app, occasionID: scope.id, giverID: target.authorID)
        return response
    }

    // MARK: Points, the finale, the occasion

    static func adjust(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        try scope.requireOpen()
        let once = try context.onceForm()
        var reader = FormReader(context.request.form)
        let delta = reader.integer("delta", label: "the points", range: -100_000...100_000)
        if delta == 0 { reader.fail("delta", "Enter a number other than 0.") }
        let reason = reader.line("reason", label: "the reason", max: 200, required: true)
        guard reader.isValid, let delta, let reason else {
            return try render(context, forms: Forms(points: reader.state), status: .unprocessableContent)
        }
        let app = context.app
        do {
            try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
                _ = try once.run(tx) {
                    let outcome = try OccasionStore.adjust(
                        tx, occasionID: scope.id, delta: delta, reason: reason, actorID: scope.viewer.userID, now: app.now)
                    // Thrown, so the token is not spent on an adjustment that was refused.
                    if case .wouldGoNegative(let balance) = outcome { throw WouldGoNegative(balance: balance) }
                    OccasionRoutes.changed(tx, app, occasionID: scope.id)
                    return panel.path(scope.id)
                }
            }
        } catch let refused as WouldGoNegative {
            var state = reader.state
            state.errors["delta"] = "That would take the balance below zero: there are \(OccasionPage.points(refused.balance)) to take from."
            return try render(context, forms: Forms(points: state), status: .unprocessableContent)
        }
        return try OccasionActions.redirect(context, panel.path(scope.id), notice: "saved")
    }

    private struct WouldGoNegative: Error { let balance: Int }

    static func callFinale(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        if scope.occasion.finaleAt == nil, scope.occasion.isOpen {
            let confirmation = try context.app.database.read { try finaleConfirmation($0, scope: scope) }
            if let page = context.unconfirmed(confirmation, cancel: panel.path(scope.id)) { return page }
        }
        return try act(context, open: true, back: OccasionRoutes.timeline.path(try context.request.parameter("occasion", as: Int64.self))) { tx, scope in
            if try OccasionStore.openFinaleIfDue(tx, occasionID: scope.id, force: true, now: context.app.now) {
                try OccasionNews.tell(
                    tx, context.app, kind: OccasionNews.finale, scope: scope, subject: "the finale", roles: [.contributor, .celebrant],
                    link: OccasionRoutes.timeline.path(scope.id))
            }
        }
    }

    static func setOpen(_ context: RequestContext, _ open: Bool) throws -> Response {
        let scope = try host(context)
        if !open, scope.occasion.isOpen, let page = context.unconfirmed(closeConfirmation(scope), cancel: panel.path(scope.id)) { return page }
        return try act(context) { tx, scope in try OccasionStore.setOpen(tx, occasionID: scope.id, open) }
    }

    static func handOver(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        guard let raw = context.request.form["user"], let newHost = Int64(raw) else {
            throw HTTPError(.unprocessableContent, "Choose who should take over as host.")
        }
        let app = context.app
        try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            // Both halves or neither: the throw rolls back the first.
            guard try OccasionStore.handOver(tx, occasionID: scope.id, from: scope.viewer.userID, to: newHost) else {
                throw HTTPError(.unprocessableContent, "Only a contributor in this occasion can take over as host.")
            }
            OccasionRoutes.changed(tx, app, occasionID: scope.id)
        }
        return try OccasionActions.redirect(context, OccasionRoutes.overview.path(scope.id), notice: "saved")
    }

    static func remove(_ context: RequestContext) throws -> Response {
        let scope = try host(context)
        let userID = try context.request.parameter("member", as: Int64.self)
        guard userID != scope.viewer.userID else {
            throw HTTPError(.conflict, "You can't remove yourself. Hand the host role to someone else first.")
        }
        let found = try context.app.database.read { db -> (Confirmation, OccasionRole)? in
            guard let member = try OccasionStore.members(db, occasionID: scope.id).first(where: { $0.userID == userID && $0.role != .host })
            else { return nil }
            return (try removeConfirmation(db, scope: scope, member: member), member.role)
        }
        guard let (confirmation, role) = found else { throw HTTPError.notFound() }
        if let page = context.unconfirmed(confirmation, cancel: panel.path(scope.id)) { return page }
        let app = context.app
        let removed = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            let removed = try OccasionStore.removeMember(tx, occasionID: scope.id, userID: userID)
            if removed {
                // The old celebrant link was theirs: left working, it would let
                // anyone holding it take their place, points and unlocked gifts.
                if role == .celebrant {
                    _ = try app.invites.rotate(
                        tx, kind: OccasionRoutes.celebrantInvite, targetID: scope.id, by: scope.viewer.userID, now: app.now)
                }
                OccasionRoutes.changed(tx, app, occasionID: scope.id)
                app.revoke([userID], topic: scope.topic, after: tx)
            }
            return removed
        }
        guard removed else { throw HTTPError.notFound() }
        return try OccasionActions.redirect(context, panel.path(scope.id), notice: "saved")
    }

    static func rotate(_ context: RequestContext) throws -> Response {
        let which = context.request.parameters["invite"] ?? ""
        guard which == OccasionRoutes.contributorInvite || which == OccasionRoutes.celebrantInvite else {
            throw HTTPError.notFound()
        }
        let scope = try host(context)
        let code = try context.app.database.read { try context.app.invites.code($0, kind: which, targetID: scope.id) }
        let title = which == OccasionRoutes.celebrantInvite ? "celebrant link" : "contributor link"
        if let page = context.unconfirmed(InviteCodes.rotateConfirmation("a new \(title)", code: code), cancel: panel.path(scope.id)) {
            return page
        }
        return try act(context) { tx, scope in
            _ = try context.app.invites.rotate(tx, kind: which, targetID: scope.id, by: scope.viewer.userID, now: context.app.now)
        }
    }

    // MARK: Destructive actions

    /// What removing a member does: they lose the occasion, and what they
    /// made stays (gifts and dares belong to the occasion's story).
    static func removeConfirmation(_ db: some Queryable, scope: OccasionScope, member: OccasionMember) throws -> Confirmation {
        removeConfirmation(
            scope: scope, member: member, gifts: try OccasionStore.gifts(db, occasionID: scope.id),
            challenges: try OccasionStore.challenges(db, occasionID: scope.id, kind: .challenge),
            dares: try OccasionStore.challenges(db, occasionID: scope.id, kind: .dare))
    }

    static func removeConfirmation(
        scope: OccasionScope, member: OccasionMember, gifts: [Gift], challenges: [Challenge], dares: [Challenge]
    ) -> Confirmation {
        let question = "Remove \(member.displayName)?"
        let button = "Remove \(member.displayName)"
        if member.role == .celebrant {
            let done = (challenges + dares).filter(\.isCompleted).count
            let kept = done == 0 ? "they haven't completed a challenge yet" : "the \(plural(done, "challenge")) they completed \(done == 1 ? "stays" : "stay") on the timeline"
            return Confirmation(
                question, "They are the one \(scope.occasion.name) celebrates: they lose access to it, and \(kept).", button: button)
        }
        let gift = gifts.contains { $0.authorID == member.userID && $0.state != .draft }
        let dare = dares.contains { $0.authorID == member.userID }
        let kept = [gift ? "their gift" : nil, dare ? "their dare" : nil].compactMap { $0 }
        let rest = kept.isEmpty ? "they haven't sent a gift or written a dare" : "\(kept.joined(separator: " and ")) \(kept.count == 1 ? "stays" : "stay")"
        return Confirmation(question, "They lose access to \(scope.occasion.name); \(rest).", button: button)
    }

    static func deleteGiftConfirmation(_ db: some Queryable, gift: Gift, giver: String) throws -> Confirmation {
        deleteGiftConfirmation(gift: gift, giver: giver, files: try OccasionMediaStore.items(db, giftID: gift.id).count)
    }

    static func deleteGiftConfirmation(gift: Gift, giver: String, files: Int) -> Confirmation {
        let what = gift.kind == .photos ? "photo gift" : gift.kind.label.lowercased()
        let consequence = "\(giver)'s \(what) goes for good\(files == 0 ? "" : ", with its \(plural(files, "file"))")."
        return Confirmation("Delete \(giver)'s gift?", consequence, button: "Delete gift")
    }

    static func deleteChallengeConfirmation(_ challenge: Challenge) -> Confirmation {
        Confirmation(
            "Delete “\(challenge.title)”?", "Nobody has completed it yet; its \(plural(challenge.points, "point")) go with it.",
            button: "Delete challenge")
    }

    static func finaleConfirmation(_ db: some Queryable, scope: OccasionScope) throws -> Confirmation {
        finaleConfirmation(gifts: try OccasionStore.gifts(db, occasionID: scope.id))
    }

    static func finaleConfirmation(gifts: [Gift]) -> Confirmation {
        let locked = gifts.filter { $0.state == .submitted || $0.state == .onOffer }.count
        return Confirmation(
            "Call the finale now?",
            "It happens once and can't be taken back: the badge opens for everyone\(locked == 0 ? "" : ", with \(plural(locked, "gift")) still locked").",
            button: "Call the finale")
    }

    static func closeConfirmation(_ scope: OccasionScope) -> Confirmation {
        Confirmation(
            "Close \(scope.occasion.name)?", "It can be read but not played until you reopen it, and it moves to “Past”.",
            button: "Close the occasion")
    }

    static func plural(_ count: Int, _ noun: String) -> String { count == 1 ? "1 \(noun)" : "\(count) \(noun)s" }
}
