import KithHTTP
import KithStorage
import KithTemplates

/// What members do: the celebrant completes, discovers and unlocks;
/// contributors write their dare and their gift; anyone reports. Each
/// action loads the scope (404 for outsiders), asks the role, changes the
/// database in one transaction, tells open pages, and redirects.
enum OccasionActions {
    /// Notices after a redirect, by key, left in the session for the next page.
    static let notices: [String: String] = [
        "completed": "Done! The points are yours.",
        "already": "That one was already done; its points were counted once.",
        "unlocked": "Unlocked!",
        "saved": "Saved.",
        "sent": "Sent to the host. They'll price it and put it on offer.",
        "withdrawn": "Back to draft: you can edit it again.",
        "reported": "Thanks. Only the host sees reports.",
        "filed": "Your dare is filed. Only you and the host can read it.",
        "uploaded": "Uploaded. It's part of your draft now.",
    ]

    static func redirect(_ context: RequestContext, _ path: String, notice: String) throws -> Response {
        if let message = notices[notice] { try context.app.database.write { tx in try context.flash(tx, message) } }
        return .redirect(to: path)
    }

    static func load(_ context: RequestContext) throws -> OccasionScope {
        try context.load(OccasionScope.self, parameter: "occasion")
    }

    // MARK: The celebrant

    static func complete(_ context: RequestContext) throws -> Response {
        let scope = try load(context)
        let challengeID = try context.request.parameter("challenge", as: Int64.self)
        let app = context.app
        guard let challenge = try app.database.read({ try OccasionStore.challenge($0, occasionID: scope.id, id: challengeID) }),
            scope.canSee(challenge)
        else { throw HTTPError.notFound() }
        try scope.require(\.canPlay, "Only \(scope.occasion.celebrantName) can complete challenges. The host can mark one done from the host panel.")
        try scope.requireOpen()
        if challenge.isCompleted { return try redirect(context, OccasionRoutes.challenge.path(scope.id, challengeID), notice: "already") }
        var reader = FormReader(context.request.form)
        var option: String? = nil
        if challenge.optionB != nil {
            option = reader.choice("option", ChosenOption.self, message: "Choose option A or option B.")?.rawValue
        }
        let proofKind = reader.choice("proof", ProofKind.self, message: "Choose how to prove it.")
        let text = reader.text("proof_text", label: "your words", max: 2000)
        if proofKind == .text && text.isEmpty { reader.fail("proof_text", "Write a few words, or choose “Just done”.") }
        let photoFile = context.request.form.file("photo").flatMap { $0.size > 0 || !$0.filename.isEmpty ? $0 : nil }
        if proofKind == .photo && photoFile == nil { reader.fail("photo", "Choose a photo, or take one.") }
        var photo: MediaStore.Stored? = nil
        if reader.isValid, proofKind == .photo, let photoFile {
            do {
                photo = try app.media.accept(photoFile, kind: .photo, limit: app.configuration.mediaLimits.photoBytes)
            } catch {
                guard let refusal = error as? HTTPError, refusal.status.code < 500 else { throw error }
                reader.fail("photo", refusal.message)
            }
        }
        guard reader.isValid, let proofKind else {
            return try OccasionPages.challenge(context, form: reader.state, status: .unprocessableContent)
        }
        let completed = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            let done = try OccasionStore.complete(
                tx, occasionID: scope.id, challengeID: challengeID,
                proof: .init(option: option, kind: proofKind.rawValue, text: text.isEmpty ? nil : text), byHost: false, now: app.now)
            if let photo {
                if done {
                    try OccasionMediaStore.attachProof(
                        tx, occasionID: scope.id, challengeID: challengeID, uploaderID: scope.viewer.userID, file: photo,
                        media: app.media, now: app.now)
                } else {
                    try app.media.discardIfUnrecorded(tx, photo)
                }
            }
            if done { OccasionRoutes.changed(tx, app, occasionID: scope.id) }
            return done
        }
        return try redirect(context, OccasionRoutes.challenge.path(scope.id, challengeID), notice: completed ? "completed" : "already")
    }

    enum ChosenOption: String { case a, b }
    enum ProofKind: String { case done, text, photo }

    static func openClassified(_ context: RequestContext) throws -> Response {
        let scope = try load(context)
        try scope.require(\.canPlay, "The classified files are for \(scope.occasion.celebrantName) to open.")
        try scope.requireOpen()
        let app = context.app
        try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            if try OccasionStore.discoverDares(tx, occasionID: scope.id, now: app.now) > 0 {
                OccasionRoutes.changed(tx, app, occasionID: scope.id)
            }
        }
        return .redirect(to: OccasionRoutes.classified.path(scope.id))
    }

    static func unlock(_ context: RequestContext) throws -> Response {
        let scope = try load(context)
        let giftID = try context.request.parameter("gift", as: Int64.self)
        let app = context.app
        guard let gift = try app.database.read({ try OccasionStore.gift($0, occasionID: scope.id, id: giftID) }),
            scope.knowsOf(gift)
        else { throw HTTPError.notFound() }
        try scope.require(\.canPlay, "Only \(scope.occasion.celebrantName) can unlock gifts. The host can unlock one from the host panel.")
        try scope.requireOpen()
        let outcome = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            try ScheduledReveal.requireRevealed(scope, now: app.now)
            let outcome = try OccasionStore.unlock(tx, occasionID: scope.id, giftID: giftID, byHost: false, now: app.now)
            if outcome == .unlocked { try unlocked(tx, app, scope: scope, gift: gift) }
            return outcome
        }
        if outcome == .unlocked { GiftReveal.tellGiverNow(app, occasionID: scope.id, giverID: gift.authorID) }
        switch outcome {
        case .unlocked, .alreadyUnlocked:
            return try redirect(context, OccasionRoutes.showGift.path(scope.id, giftID), notice: "unlocked")
        case .notOnOffer:
            throw HTTPError.notFound()
        case .insufficient(let balance, let cost):
            return try OccasionPages.gift(
                context,
                flash: [Flash(.error, "This gift costs \(OccasionPage.points(cost)) and you have \(OccasionPage.points(balance)). Complete a few more challenges first.")],
                status: .conflict)
        }
    }

    /// After an unlock, in its transaction: the giver hears of it, and the
    /// finale opens if that was the last gift on offer.
    static func unlocked(_ tx: Transaction, _ app: KithApp, scope: OccasionScope, gift: Gift) throws {
        try OccasionNews.tell(
            tx, app, kind: OccasionNews.unlocked, scope: scope, subject: gift.kind.label, recipients: [gift.authorID],
            link: OccasionRoutes.timeline.path(scope.id))
        if try OccasionStore.openFinaleIfDue(tx, occasionID: scope.id, force: false, now: app.now) {
            try OccasionNews.tell(
                tx, app, kind: OccasionNews.finale, scope: scope, subject: "the finale", roles: [.host, .contributor],
                link: OccasionRoutes.timeline.path(scope.id))
        }
        OccasionRoutes.changed(tx, app, occasionID: scope.id)
    }

    // MARK: Contributors

    static func saveDare(_ context: RequestContext) throws -> Response {
        let scope = try load(context)
        try scope.require(\.canContribute, "The secret dares are written for you, not by you.")
        try scope.requireOpen()
        var reader = FormReader(context.request.form)
        let title = reader.line("title", label: "the dare", max: 120, required: true)
        let description = reader.text("description", label: "the briefing", max: 4000)
        let points = reader.integer(
            "points", label: "the points", range: scope.occasion.dareMinPoints...scope.occasion.dareMaxPoints)
        guard reader.isValid, let title, let points else {
            return try OccasionPages.dare(context, form: reader.state, status: .unprocessableContent)
        }
        let app = context.app
        let saved = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            let saved = try OccasionStore.saveDare(
                tx, occasionID: scope.id, authorID: scope.viewer.userID, title: title, description: description, points: points,
                now: app.now)
            if saved { OccasionRoutes.changed(tx, app, occasionID: scope.id) }
            return saved
        }
        guard saved else {
            throw HTTPError(.conflict, "\(scope.occasion.celebrantName) has already found your dare, so it can't change now.")
        }
        return try redirect(context, OccasionRoutes.dare.path(scope.id), notice: "filed")
    }

    static func saveGift(_ context: RequestContext) throws -> Response {
        let scope = try load(context)
        try scope.require(\.canContribute, "Gifts are made for you, not by you.")
        try scope.requireOpen()
        let app = context.app
        // With photos, a video or a voice note the words are a note, and optional.
        let hasMedia = try app.database.read {
            try OccasionMediaStore.hasGiftMedia($0, occasionID: scope.id, authorID: scope.viewer.userID)
        }
        var reader = FormReader(context.request.form)
        let body = reader.text("body", label: "your letter", max: 20000, required: !hasMedia)
        guard reader.isValid else { return try OccasionPages.ownGift(context, form: reader.state, status: .unprocessableContent) }
        let saved = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            try OccasionStore.saveDraft(tx, occasionID: scope.id, authorID: scope.viewer.userID, body: body, now: app.now)
        }
        guard saved else { throw HTTPError(.conflict, "Your gift has been sent, so it can't change now.") }
        return try redirect(context, OccasionRoutes.gift.path(scope.id), notice: "saved")
    }

    static func submitGift(_ context: RequestContext) throws -> Response {
        let scope = try load(context)
        try scope.require(\.canContribute, "Gifts are made for you, not by you.")
        try scope.requireOpen()
        let app = context.app
        let sent = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            guard try OccasionStore.submit(tx, occasionID: scope.id, authorID: scope.viewer.userID, now: app.now) else { return false }
            try OccasionNews.tell(
                tx, app, kind: OccasionNews.giftSent, scope: scope, subject: "a gift", roles: [.host], link: HostRoutes.panel.path(scope.id))
            OccasionRoutes.changed(tx, app, occasionID: scope.id)
            return true
        }
        guard sent else {
            return try OccasionPages.ownGift(
                context, form: nil, status: .conflict,
                flash: [Flash(.error, "There's nothing to send yet. Save your letter, or add photos, a video or a voice note first.")])
        }
        return try redirect(context, OccasionRoutes.gift.path(scope.id), notice: "sent")
    }

    static func withdrawGift(_ context: RequestContext) throws -> Response {
        let scope = try load(context)
        try scope.require(\.canContribute, "Gifts are made for you, not by you.")
        try scope.requireOpen()
        let app = context.app
        let withdrawn = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            let done = try OccasionStore.withdraw(tx, occasionID: scope.id, authorID: scope.viewer.userID)
            if done { OccasionRoutes.changed(tx, app, occasionID: scope.id) }
            return done
        }
        guard withdrawn else { throw HTTPError(.conflict, "The host has already put your gift on offer, so it stays as it is.") }
        return try redirect(context, OccasionRoutes.gift.path(scope.id), notice: "withdrawn")
    }

    // MARK: Reports

    /// Any member may report what they can see: a challenge (or found dare)
    /// or a gift. Reports are for the host's eyes only.
    static func report(_ context: RequestContext) throws -> Response {
        let scope = try load(context)
        try scope.require(\.canReport, "You can't report here.")
        let app = context.app
        let query = context.request.query
        let subject: (kind: String, id: Int64, title: String, back: String)
        if let raw = query["challenge"], let id = Int64(raw) {
            guard let challenge = try app.database.read({ try OccasionStore.challenge($0, occasionID: scope.id, id: id) }),
                scope.canSee(challenge)
            else { throw HTTPError.notFound() }
            subject = ("challenge", id, challenge.title, OccasionRoutes.challenge.path(scope.id, id))
        } else if let raw = query["gift"], let id = Int64(raw) {
            guard let gift = try app.database.read({ try OccasionStore.gift($0, occasionID: scope.id, id: id) }),
                scope.knowsOf(gift)
            else { throw HTTPError.notFound() }
            subject = ("gift", id, "a gift", OccasionRoutes.showGift.path(scope.id, id))
        } else {
            throw HTTPError(.badRequest, "Say what you're reporting: open the challenge or gift and use its report button.")
        }
        let once = try context.onceForm()
        var reader = FormReader(context.request.form)
        let reason = reader.text("reason", label: "the reason", max: 500)
        guard reader.isValid else { throw HTTPError(.unprocessableContent, reader.state.errors["reason"] ?? "Please check the reason.") }
        try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            _ = try once.run(tx) {
                try OccasionStore.report(
                    tx, occasionID: scope.id, subjectKind: subject.kind, subjectID: subject.id, reason: reason, reporterID: scope.viewer.userID,
                    now: app.now)
                try OccasionNews.tell(
                    tx, app, kind: OccasionNews.report, scope: scope, subject: subject.title, roles: [.host], link: HostRoutes.panel.path(scope.id))
                OccasionRoutes.changed(tx, app, occasionID: scope.id)
                return subject.back
            }
        }
        return try redirect(context, subject.back, notice: "reported")
    }
}
