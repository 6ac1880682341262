import KithHTTP
import KithMedia
import KithStorage
import KithTemplates

/// The celebrant's thank-you for each unlocked gift, and members' reactions
/// to it. `visible(_:to:bookIsOpen:)` is the one statement of who sees
/// them; pages, actions, media and the timeline all ask it.
enum OccasionThanks {
    /// Made with its body limit when the app is built (see `endpoints`).
    static let thank = Route(.post, "/occasions/:occasion/gifts/:gift/thanks")
    static let react = Route(.post, "/occasions/:occasion/gifts/:gift/reactions")
    static let media = Route(.get, "/occasions/:occasion/thanks/:thanks/media")

    static let thanked = "occasion.thanked"

    static let newsKinds: [NotificationKind] = [
        NotificationKind(thanked) { digest in
            "\(Notifications.listing(digest.actorNames)) thanked you for your gift in \(digest.scopeTitle)"
        }
    ]

    /// The fixed set, in the order shown: the posted key, the emoji, and
    /// the name a screen reader says.
    static let reactions: [(key: String, emoji: String, name: String)] = [
        ("heart", "❤️", "heart"), ("laugh", "😂", "laughter"), ("wow", "😮", "surprise"), ("tears", "🥲", "happy tears"),
        ("party", "🎉", "party popper"),
    ]

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        let limits = app.configuration.mediaLimits
        // One file at most is kept; two are read only to say "one, not both".
        let body = BodyPolicy.uploads(maxFileBytes: max(limits.photoBytes, limits.voiceBytes), maxFiles: 2, acceptsURLEncoded: true)
        Endpoint(Route(.post, thank.pattern.description, body: body)) { context in try sendThanks(context) }
        Endpoint(react) { context in try toggleReaction(context) }
        Endpoint(media) { context in try serve(context) }
    }

    // MARK: Who sees what

    /// Who may see a gift's thank-you and reactions, and react: once the
    /// gift is unlocked, its giver, the celebrant and the host; everyone
    /// else in the occasion only once the shared book is open.
    static func visible(_ gift: Gift, to scope: OccasionScope, bookIsOpen: Bool) -> Bool {
        visible(
            unlocked: gift.state == .unlocked, authorID: gift.authorID, viewerID: scope.viewer.userID, role: scope.role,
            bookIsOpen: bookIsOpen)
    }

    static func visible(unlocked: Bool, authorID: Int64, viewerID: Int64, role: OccasionRole, bookIsOpen: Bool) -> Bool {
        unlocked && (bookIsOpen || authorID == viewerID || role.canPlay || role.canModerate)
    }

    /// Whether the occasion's shared book is open: the book answers, and
    /// every check above follows.
    static func bookIsOpen(_ db: some Queryable, occasionID: Int64) throws -> Bool {
        try OccasionBook.isOpen(db, occasionID: occasionID)
    }

    /// The gift, if the viewer may see its responses; otherwise not found.
    static func visibleGift(_ context: RequestContext, _ scope: OccasionScope) throws -> Gift {
        let giftID = try context.request.parameter("gift", as: Int64.self)
        let found = try context.app.database.read { db -> Gift? in
            guard let gift = try OccasionStore.gift(db, occasionID: scope.id, id: giftID),
                visible(gift, to: scope, bookIsOpen: try bookIsOpen(db, occasionID: scope.id))
            else { return nil }
            return gift
        }
        guard let found else { throw HTTPError.notFound() }
        return found
    }

    // MARK: Thanks

    static func sendThanks(_ context: RequestContext) throws -> Response {
        let scope = try context.load(OccasionScope.self, parameter: "occasion")
        let gift = try visibleGift(context, scope)
        try scope.require(\.canPlay, "Only \(scope.occasion.celebrantName) says thank you for a gift.")
        let app = context.app
        let limits = app.configuration.mediaLimits
        let form = context.request.form
        var reader = FormReader(form)
        let words = reader.text("words", label: "your words", max: 2000)
        let chosen = { (name: String) in form.file(name).flatMap { $0.size > 0 || !$0.filename.isEmpty ? $0 : nil } }
        let photo = chosen("photo")
        let voice = chosen("voice")
        if photo != nil && voice != nil { reader.fail("photo", "Choose a photo or a voice note, not both.") }
        if reader.isValid && words.isEmpty && photo == nil && voice == nil {
            reader.fail("words", "Write a few words, or add a photo or a voice note.")
        }
        var stored: MediaStore.Stored? = nil
        let upload = photo.map { ($0, MediaKind.photo, limits.photoBytes, "photo") } ?? voice.map { ($0, MediaKind.audio, limits.voiceBytes, "voice") }
        if reader.isValid, let upload {
            let (file, kind, limit, field) = upload
            do {
                stored = try app.media.accept(file, kind: kind, limit: limit)
            } catch {
                guard let refusal = error as? HTTPError, refusal.status.code < 500 else { throw error }
                reader.fail(field, refusal.message)
            }
        }
        guard reader.isValid else {
            return try OccasionPages.gift(context, status: .unprocessableContent, thanksForm: reader.state)
        }
        let duration = form["duration_ms"].flatMap { Int($0) }.map { min(max($0, 0), 86_400_000) }
        let added = try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            let added = try ThanksStore.add(
                tx, occasionID: scope.id, giftID: gift.id, authorID: scope.viewer.userID, body: words, file: stored, durationMs: duration,
                media: app.media, now: app.now)
            guard added else { return false }
            try OccasionNews.tell(
                tx, app, kind: thanked, scope: scope, subject: gift.kind.label, recipients: [gift.authorID],
                link: OccasionRoutes.showGift.path(scope.id, gift.id))
            try context.flash(tx, "Your thanks are on their way.")
            OccasionRoutes.changed(tx, app, occasionID: scope.id)
            return true
        }
        guard added else { throw HTTPError(.conflict, "You've already thanked them for this gift; a thank-you stays as it was sent.") }
        return .redirect(to: OccasionRoutes.showGift.path(scope.id, gift.id))
    }

    // MARK: Reactions

    static func toggleReaction(_ context: RequestContext) throws -> Response {
        let scope = try context.load(OccasionScope.self, parameter: "occasion")
        let gift = try visibleGift(context, scope)
        let key = context.request.form["emoji"] ?? ""
        guard reactions.contains(where: { $0.key == key }) else {
            throw HTTPError(.unprocessableContent, "Choose one of the reactions shown.")
        }
        let app = context.app
        try context.write(OccasionScope.self, parameter: "occasion") { tx, scope in
            // The gift is asked again inside the write: it is visible still.
            guard let fresh = try OccasionStore.gift(tx, occasionID: scope.id, id: gift.id),
                visible(fresh, to: scope, bookIsOpen: try bookIsOpen(tx, occasionID: scope.id))
            else { throw HTTPError.notFound() }
            _ = try ThanksStore.toggle(tx, occasionID: scope.id, giftID: gift.id, userID: scope.viewer.userID, emoji: key, now: app.now)
            OccasionRoutes.changed(tx, app, occasionID: scope.id)
        }
        return .redirect(to: OccasionRoutes.showGift.path(scope.id, gift.id))
    }

    // MARK: On the gift's page and the timeline

    struct Data: Sendable {
        var thanks: ThanksStore.Thanks?
        var reactions: [String: (count: Int, mine: Bool)]
        var bookIsOpen: Bool
    }

    /// What the gift's page shows of its responses, read in the page's snapshot.
    static func data(_ db: some Queryable, scope: OccasionScope, giftID: Int64) throws -> Data {
        Data(
            thanks: try ThanksStore.thanks(db, occasionID: scope.id, giftID: giftID),
            reactions: try ThanksStore.reactions(db, giftID: giftID, viewerID: scope.viewer.userID),
            bookIsOpen: try bookIsOpen(db, occasionID: scope.id))
    }

    static func mediaViews(_ thanks: ThanksStore.Thanks, occasionID: Int64, celebrant: String) -> [MediaView] {
        guard let kind = thanks.mediaKind, let mimeType = thanks.mimeType else { return [] }
        let url = media.path(occasionID, thanks.id)
        return [
            MediaView(
                id: thanks.id, kind: kind == .photo ? .photo : .audio, url: url, mimeType: mimeType,
                durationMs: thanks.durationMs, label: kind == .photo ? "Photo from \(celebrant)" : "Thank-you voice note from \(celebrant)",
                picture: PhotoVariants.picture(thanks.photo, base: url, original: url, mimeType: mimeType))
        ]
    }

    /// The responses part of an unlocked gift's page, or nothing when the
    /// viewer may not see them.
    static func view(
        _ data: Data, gift: Gift, giverName: String, scope: OccasionScope, form: FormState?, zone: String, app: KithApp
    ) -> GiftResponsesView? {
        guard visible(gift, to: scope, bookIsOpen: data.bookIsOpen) else { return nil }
        let celebrant = scope.occasion.celebrantName
        let isGiver = gift.authorID == scope.viewer.userID
        let opened = isGiver
            ? gift.unlockedAt.map { "\(celebrant) opened your gift on \(TimeText.local($0, zone: zone).human)." } : nil
        let thanks = data.thanks.map { given -> GiftResponsesView.Thanks in
            let time = TimeText.local(given.at, zone: zone)
            return GiftResponsesView.Thanks(
                heading: scope.role.canPlay ? "Your thanks to \(giverName)" : "Thanks from \(celebrant)", words: given.body,
                media: mediaViews(given, occasionID: scope.id, celebrant: celebrant), when: time.human, isoTime: time.machine)
        }
        let limits = app.configuration.mediaLimits
        let thanksForm =
            data.thanks == nil && scope.role.canPlay
            ? GiftResponsesView.ThanksForm(
                action: thank.path(scope.id, gift.id), giverName: giverName, form: form ?? FormState(),
                photoLimitMB: limits.photoBytes / 1_048_576, voiceLimitMB: limits.voiceBytes / 1_048_576)
            : nil
        return GiftResponsesView(
            giftID: gift.id, opened: opened, thanks: thanks, thanksForm: thanksForm,
            waiting: data.thanks == nil && !scope.role.canPlay ? "No thank-you from \(celebrant) yet." : nil,
            reactions: reactions.map { reaction in
                let found = data.reactions[reaction.key]
                return GiftResponsesView.Reaction(
                    key: reaction.key, emoji: reaction.emoji, name: reaction.name, count: found?.count ?? 0, isMine: found?.mine ?? false)
            },
            reactAction: react.path(scope.id, gift.id))
    }

    /// A gift's reactions for the keepsake, in the order shown on the
    /// gift's page, leaving out those nobody chose.
    static func keptReactions(_ db: some Queryable, giftID: Int64) throws -> [Keepsake.Reaction] {
        let found = try ThanksStore.reactions(db, giftID: giftID, viewerID: 0)
        return reactions.compactMap { reaction in
            found[reaction.key].map { Keepsake.Reaction(emoji: reaction.emoji, name: reaction.name, count: $0.count) }
        }
    }

    /// Timeline entries for the thank-yous the viewer may see. Their ids are
    /// negative so they never meet a timeline row's id on the page.
    static func timelineEntries(
        _ db: some Queryable, scope: OccasionScope, gifts: [Gift], members: [OccasionMember], zone: String, csrf: String?
    ) throws -> [(at: Int64, entry: TimelineEntryView)] {
        let bookIsOpen = try bookIsOpen(db, occasionID: scope.id)
        return try ThanksStore.all(db, occasionID: scope.id).compactMap { thanks in
            guard let gift = gifts.first(where: { $0.id == thanks.giftID }), visible(gift, to: scope, bookIsOpen: bookIsOpen) else {
                return nil
            }
            let giver = gift.authorID == scope.viewer.userID
                ? "you" : FormerMember.name(members.first { $0.userID == gift.authorID }?.displayName)
            let time = TimeText.local(thanks.at, zone: zone)
            let media = mediaViews(thanks, occasionID: scope.id, celebrant: scope.occasion.celebrantName)
            return (
                thanks.at,
                TimelineEntryView(
                    id: -thanks.id, kind: .thanks, title: "\(scope.occasion.celebrantName) thanked \(giver)",
                    detail: thanks.body.isEmpty ? nil : thanks.body, points: 0, when: time.human, isoTime: time.machine,
                    media: media.isEmpty ? nil : MediaViews.render(media, csrf: csrf))
            )
        }
    }

    // MARK: Serving a thank-you's file

    static func serve(_ context: RequestContext) throws -> Response {
        let scope = try context.load(OccasionScope.self, parameter: "occasion")
        let thanksID = try context.request.parameter("thanks", as: Int64.self)
        let found = try context.app.database.read { db -> ThanksStore.Thanks? in
            guard let thanks = try ThanksStore.thanks(db, occasionID: scope.id, id: thanksID), thanks.sha256 != nil,
                let gift = try OccasionStore.gift(db, occasionID: scope.id, id: thanks.giftID),
                visible(gift, to: scope, bookIsOpen: try bookIsOpen(db, occasionID: scope.id))
            else { return nil }
            return thanks
        }
        guard let thanks = found, let sha256 = thanks.sha256, let mimeType = thanks.mimeType else { throw HTTPError.notFound() }
        if let variant = try PhotoVariants.response(context, photo: thanks.photo, media: context.app.media, fileName: "kith-thanks-\(thanks.id)") {
            return variant
        }
        // A thank-you never changes and its id is never reused, so its URL
        // always means these bytes and the browser may keep them.
        var response = try Response.file(
            at: context.app.media.path(for: sha256), contentType: mimeType, request: context.request.head,
            cacheControl: "private, max-age=86400, immutable")
        response.headers.set("Content-Security-Policy", "default-src 'none'; img-src 'self'; media-src 'self'; sandbox")
        response.headers.set(
            "Content-Disposition", "inline; filename=\"kith-thanks-\(thanks.id).\(OccasionMedia.fileExtension(mimeType))\"")
        return response
    }
}
