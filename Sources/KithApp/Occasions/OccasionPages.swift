import KithHTTP
import KithStorage
import KithTemplates

/// The occasion's pages. Each loads the scope (404 for outsiders), takes the
/// live cursor, then reads what it shows in one read, already filtered by
/// the viewer's role: a template never receives what its viewer may not see.
enum OccasionPages {
    /// The scope, its frame (cursor first) and a fresh read of the occasion
    /// with the page's data.
    static func prepare<T>(
        _ context: RequestContext, flash: [Flash] = [], read: (Connection, OccasionScope) throws -> T
    ) throws -> (OccasionScope, PageContext, T) {
        let loaded = try context.load(OccasionScope.self, parameter: "occasion")
        let frame = OccasionRoutes.frame(context, loaded, flash: flash)
        let (scope, data) = try context.app.database.read { db -> (OccasionScope, T) in
            let occasion = try OccasionStore.occasion(db, id: loaded.id) ?? loaded.occasion
            let scope = OccasionScope(occasion: occasion, viewer: loaded.viewer)
            return (scope, try read(db, scope))
        }
        return (scope, frame, data)
    }

    // MARK: Overview

    static func overview(_ context: RequestContext) throws -> Response {
        let (scope, frame, model) = try prepare(context) { db, scope -> OccasionScreens.Overview in
            let challenges = try OccasionStore.challenges(db, occasionID: scope.id, kind: .challenge)
            let dares = try OccasionStore.challenges(db, occasionID: scope.id, kind: .dare)
            let gifts = try OccasionStore.gifts(db, occasionID: scope.id)
            let ownGift = gifts.first { $0.authorID == scope.viewer.userID }
            let ownDare = dares.first { $0.authorID == scope.viewer.userID }
            let giftStatus: OccasionScreens.Overview.Status =
                switch ownGift?.state {
                case nil: .none
                case .draft: .draft
                case .submitted: .submitted
                case .onOffer: .onOffer
                case .unlocked: .unlocked
                }
            let dareStatus: OccasionScreens.Overview.Status =
                ownDare == nil ? .none : (ownDare?.discoveredAt != nil ? .sealed : .written)
            let members = try OccasionStore.memberCount(db, occasionID: scope.id)
            return OccasionScreens.Overview(
                isCelebrant: scope.role.canPlay, canContribute: scope.role.canContribute, isHost: scope.role.canManage,
                celebrantJoined: members.celebrant,
                challengesOpen: challenges.filter { !$0.isCompleted }.count + dares.filter { $0.discoveredAt != nil && !$0.isCompleted }.count,
                challengesDone: challenges.filter(\.isCompleted).count + dares.filter(\.isCompleted).count,
                sealedDares: dares.filter { $0.discoveredAt == nil }.count,
                giftsOnOffer: gifts.filter { $0.state == .onOffer }.count, giftsUnlocked: gifts.filter { $0.state == .unlocked }.count,
                giftStatus: giftStatus, dareStatus: dareStatus, memberCount: members.count)
        }
        return context.app.page(
            OccasionScreens.overview(context: frame, header: OccasionBook.header(scope, context: context), model: model))
    }

    // MARK: Challenges

    static func item(_ challenge: Challenge, occasionID: Int64) -> OccasionScreens.ChallengeItem {
        OccasionScreens.ChallengeItem(
            id: challenge.id, title: challenge.title, optionB: challenge.optionB, points: challenge.points,
            difficulty: challenge.difficulty.rawValue, difficultyLabel: challenge.difficulty.label, category: challenge.category.rawValue,
            categoryLabel: challenge.category.label, isDare: challenge.kind == .dare, isCompleted: challenge.isCompleted,
            url: OccasionRoutes.challenge.path(occasionID, challenge.id))
    }

    static func board(_ context: RequestContext) throws -> Response {
        let (scope, frame, all) = try prepare(context) { db, scope in
            try OccasionStore.challenges(db, occasionID: scope.id, kind: .challenge)
                + OccasionStore.challenges(db, occasionID: scope.id, kind: .dare).filter { $0.discoveredAt != nil }
        }
        // To do first, grouped by category; then everything done.
        var groups: [(label: String, items: [OccasionScreens.ChallengeItem])] = ChallengeCategory.allCases.map { category in
            (category.label, all.filter { !$0.isCompleted && $0.category == category }.map { item($0, occasionID: scope.id) })
        }
        groups.append(("Done", all.filter(\.isCompleted).map { item($0, occasionID: scope.id) }))
        return context.app.page(
            OccasionScreens.board(
                context: frame, header: OccasionRoutes.header(scope), groups: groups, showSecretEntry: scope.role.canPlay,
                newChallengeURL: scope.role.canManage ? HostRoutes.panel.path(scope.id) : nil))
    }

    static func challenge(_ context: RequestContext, form: FormState, status: HTTPStatus = .ok) throws -> Response {
        let challengeID = try context.request.parameter("challenge", as: Int64.self)
        let (scope, frame, data) = try prepare(context) { db, scope in
            (try OccasionStore.challenge(db, occasionID: scope.id, id: challengeID), try OccasionMediaStore.proof(db, challengeID: challengeID))
        }
        let (found, proofPhoto) = data
        guard let challenge = found, scope.canSee(challenge) else { throw HTTPError.notFound() }
        var completion: [String] = []
        if let completedAt = challenge.completedAt {
            let when = TimeText.local(completedAt, zone: context.user?.timeZone ?? "UTC").human
            if challenge.proofKind == "host" {
                completion.append("Marked done by the host on \(when).")
            } else {
                completion.append("Completed on \(when).")
            }
            if challenge.chosenOption == "b", let optionB = challenge.optionB { completion.append("Chose option B: \(optionB)") }
            if let text = challenge.proofText, !text.isEmpty { completion.append("“\(text)”") }
        }
        let canComplete = scope.role.canPlay && scope.occasion.isOpen && !challenge.isCompleted
            && (challenge.kind == .challenge || challenge.discoveredAt != nil)
        let model = OccasionScreens.ChallengeDetail(
            item: item(challenge, occasionID: scope.id), description: challenge.description, completion: completion,
            completeAction: canComplete ? OccasionRoutes.complete.path(scope.id, challenge.id) : nil,
            reportAction: OccasionRoutes.report.path(scope.id) + "?challenge=\(challenge.id)",
            editURL: scope.role.canManage && challenge.kind == .challenge && !challenge.isCompleted
                ? HostRoutes.editChallenge.path(scope.id, challenge.id) : nil,
            form: form,
            proof: MediaViews.render(
                proofPhoto.map { OccasionMedia.views([$0], occasionID: scope.id, giver: scope.occasion.celebrantName, removable: false) } ?? [],
                csrf: context.csrfToken),
            reportOnce: context.onceToken())
        return context.app.page(
            OccasionScreens.challenge(context: frame, header: OccasionRoutes.header(scope), model: model), status: status)
    }

    static func classified(_ context: RequestContext) throws -> Response {
        let (scope, frame, dares) = try prepare(context) { db, _ in
            try OccasionStore.challenges(db, occasionID: try context.request.parameter("occasion", as: Int64.self), kind: .dare)
        }
        let visible = dares.filter { scope.role.canPlay ? $0.discoveredAt != nil : scope.canSee($0) }
        let sealed = dares.filter { $0.discoveredAt == nil }.count
        let intro =
            scope.role.canPlay
            ? "Your people have filed secret dares for you. Each one is worth points."
            : scope.role.canSeeAllDares
                ? "Every dare filed so far. \(scope.occasion.celebrantName) sees them once they break the seal."
                : "Your own dare. The others stay sealed until \(scope.occasion.celebrantName) finds them."
        return context.app.page(
            OccasionScreens.classified(
                context: frame, header: OccasionRoutes.header(scope), dares: visible.map { item($0, occasionID: scope.id) },
                sealedCount: sealed,
                openAction: scope.role.canPlay && scope.occasion.isOpen ? OccasionRoutes.openClassified.path(scope.id) : nil,
                intro: intro))
    }

    static func dare(_ context: RequestContext, form: FormState?, status: HTTPStatus = .ok) throws -> Response {
        let (scope, frame, existing) = try prepare(context) { db, scope in
            try OccasionStore.dare(db, occasionID: scope.id, authorID: scope.viewer.userID)
        }
        try scope.require(\.canContribute, "The secret dares are written for you, not by you.")
        let state =
            form
            ?? FormState(values: existing.map { ["title": $0.title, "description": $0.description, "points": String($0.points)] } ?? [:])
        let model = OccasionForms.DareModel(
            form: state, minPoints: scope.occasion.dareMinPoints, maxPoints: scope.occasion.dareMaxPoints,
            isSealed: existing.map { $0.discoveredAt != nil || $0.isCompleted } ?? false, exists: existing != nil)
        return context.app.page(
            OccasionForms.dare(context: frame, header: OccasionRoutes.header(scope), model: model, action: OccasionRoutes.saveDare.path(scope.id)),
            status: status)
    }

    // MARK: Gifts

    static func ownGift(
        _ context: RequestContext, form: FormState?, status: HTTPStatus = .ok, flash: [Flash] = [], uploadError: String? = nil
    ) throws -> Response {
        let (scope, frame, data) = try prepare(context, flash: flash) { db, scope -> (Gift?, [OccasionMediaStore.Item]) in
            let gift = try OccasionStore.gift(db, occasionID: scope.id, authorID: scope.viewer.userID)
            return (gift, try gift.map { try OccasionMediaStore.items(db, giftID: $0.id) } ?? [])
        }
        try scope.require(\.canContribute, "Gifts are made for you, not by you. Yours are waiting in Gifts.")
        let (existing, items) = data
        let editable = existing == nil || existing?.state == .draft
        let limits = context.app.configuration.mediaLimits
        let uploads = MediaViews.Uploads(
            photosAction: OccasionMedia.path(OccasionMedia.photosPattern, scope.id),
            videoAction: OccasionMedia.path(OccasionMedia.videoPattern, scope.id),
            voiceAction: OccasionMedia.path(OccasionMedia.voicePattern, scope.id), photoLimitMB: limits.photoBytes / 1_000_000,
            videoLimitMB: limits.videoBytes / 1_000_000, voiceLimitMB: limits.voiceBytes / 1_000_000, error: uploadError)
        let media = MediaViews.render(
            OccasionMedia.views(items, occasionID: scope.id, giver: "you", removable: editable), csrf: context.csrfToken)
        let model = OccasionForms.GiftModel(
            form: form ?? FormState(values: ["body": existing?.body ?? ""]), state: existing?.state.rawValue,
            costLabel: existing?.cost.map { OccasionPage.points($0) }, saveAction: OccasionRoutes.saveGift.path(scope.id),
            submitAction: OccasionRoutes.submitGift.path(scope.id), withdrawAction: OccasionRoutes.withdrawGift.path(scope.id),
            media: media, uploads: editable ? MediaViews.uploadForms(uploads, csrf: context.csrfToken) : "", hasMedia: !items.isEmpty)
        return context.app.page(OccasionForms.gift(context: frame, header: OccasionRoutes.header(scope), model: model), status: status)
    }

    /// A gift's content as those allowed to read it see it: its media, then
    /// its words.
    static func giftContent(_ gift: Gift, items: [OccasionMediaStore.Item], giver: String, occasionID: Int64, csrf: String?) -> HTML {
        MediaViews.gift(
            media: OccasionMedia.views(items, occasionID: occasionID, giver: giver, removable: false), letter: gift.body, csrf: csrf)
    }

    /// The celebrant's card for a gift on offer: giver and kind while
    /// locked, the content once unlocked. Nil for anything not on offer.
    static func card(
        _ gift: Gift, giver: OccasionMember?, items: [OccasionMediaStore.Item], scope: OccasionScope, app: KithApp, csrf: String?
    ) -> GiftCardView? {
        guard gift.isOffered else { return nil }
        let cost = gift.cost ?? 0
        let state: GiftCardView.State =
            gift.state == .unlocked ? .unlocked : (scope.occasion.balance >= cost ? .affordable : .locked)
        let canUnlock = scope.role.canPlay && scope.occasion.isOpen && state == .affordable && !ScheduledReveal.waits(scope.occasion, now: app.now)
        return GiftCardView(
            id: gift.id, giverName: FormerMember.name(giver?.displayName, startsSentence: true), giverAvatarURL: Avatars.avatarURL(giver?.avatar ?? "fox", displayName: giver?.accountName ?? "", assets: app.assets),
            kindLabel: gift.kind.label, cost: cost, state: state,
            content: state == .unlocked
                ? giftContent(gift, items: items, giver: FormerMember.name(giver?.displayName), occasionID: scope.id, csrf: csrf) : nil,
            unlockAction: canUnlock ? OccasionRoutes.unlock.path(scope.id, gift.id) : nil, detailURL: OccasionRoutes.showGift.path(scope.id, gift.id))
    }

    static func gifts(_ context: RequestContext) throws -> Response {
        let (scope, frame, data) = try prepare(context) { db, scope in
            (
                try OccasionStore.gifts(db, occasionID: scope.id), try OccasionStore.members(db, occasionID: scope.id),
                Dictionary(grouping: try OccasionMediaStore.items(db, occasionID: scope.id), by: { $0.giftID ?? 0 })
            )
        }
        let (gifts, members, media) = data
        let giver = { (gift: Gift) in members.first { $0.userID == gift.authorID } }
        let offered = gifts.filter(\.isOffered)
        let header = OccasionBook.header(scope, context: context)
        if scope.role.canPlay {
            let cards = offered.compactMap {
                card($0, giver: giver($0), items: media[$0.id] ?? [], scope: scope, app: context.app, csrf: context.csrfToken)
            }
            return context.app.page(OccasionScreens.gifts(context: frame, header: header, carousel: cards, list: [], ownGiftURL: nil))
        }
        let list = offered.map { gift in
            OccasionScreens.GiftListItem(
                giverName: FormerMember.name(giver(gift)?.displayName, startsSentence: true), kindLabel: gift.kind.label,
                stateLabel: gift.state == .unlocked ? "Unlocked" : "On offer · \(OccasionPage.points(gift.cost ?? 0))",
                url: scope.canRead(gift) ? OccasionRoutes.showGift.path(scope.id, gift.id) : nil)
        }
        return context.app.page(
            OccasionScreens.gifts(
                context: frame, header: header, carousel: nil, list: list,
                ownGiftURL: scope.role.canContribute ? OccasionRoutes.gift.path(scope.id) : nil))
    }

    static func gift(
        _ context: RequestContext, flash: [Flash] = [], status: HTTPStatus = .ok, thanksForm: FormState? = nil
    ) throws -> Response {
        let giftID = try context.request.parameter("gift", as: Int64.self)
        let (scope, frame, data) = try prepare(context, flash: flash) { db, scope in
            (
                try OccasionStore.gift(db, occasionID: scope.id, id: giftID), try OccasionStore.members(db, occasionID: scope.id),
                try OccasionMediaStore.items(db, giftID: giftID), try OccasionThanks.data(db, scope: scope, giftID: giftID)
            )
        }
        let (found, members, items, responses) = data
        // Who may open a gift's page: the celebrant once it is on offer, its
        // author always, the host once it is sent. Anyone else: not found.
        guard let gift = found else { throw HTTPError.notFound() }
        let isAuthor = gift.authorID == scope.viewer.userID
        let giver = members.first { $0.userID == gift.authorID }
        let reportAction = OccasionRoutes.report.path(scope.id) + "?gift=\(gift.id)"
        // A gift still on offer is the celebrant's card, with its unlock
        // button; once readable, everyone allowed sees the gift itself.
        if scope.role.canPlay, gift.state == .onOffer,
            let view = card(gift, giver: giver, items: items, scope: scope, app: context.app, csrf: context.csrfToken)
        {
            return context.app.page(
                OccasionScreens.gift(
                    context: frame, header: OccasionBook.header(scope, context: context), path: OccasionRoutes.showGift.path(scope.id, gift.id),
                    title: "\(view.kindLabel) from \(view.giverName)", card: view,
                    content: nil, note: nil, reportAction: reportAction, reportOnce: context.onceToken()),
                status: status)
        }
        guard scope.canRead(gift) else { throw HTTPError.notFound() }
        let note: String =
            switch gift.state {
            case .draft: "A draft: only you can see it."
            case .submitted: "Sent to the host, waiting for a price."
            case .onOffer: "On offer for \(OccasionPage.points(gift.cost ?? 0)). \(scope.occasion.celebrantName) sees only who it's from until they unlock it."
            case .unlocked: scope.role.canPlay ? "Yours: you unlocked it." : "Unlocked by \(scope.occasion.celebrantName)."
            }
        return context.app.page(
            OccasionScreens.gift(
                context: frame, header: OccasionRoutes.header(scope), path: OccasionRoutes.showGift.path(scope.id, gift.id),
                title: "\(gift.kind.label) from \(isAuthor ? "you" : FormerMember.name(giver?.displayName))", card: nil,
                content: giftContent(
                    gift, items: items, giver: isAuthor ? "you" : FormerMember.name(giver?.displayName), occasionID: scope.id,
                    csrf: context.csrfToken),
                note: note, reportAction: reportAction, reportOnce: context.onceToken(),
                responses: OccasionThanks.view(
                    responses, gift: gift, giverName: FormerMember.name(giver?.displayName), scope: scope, form: thanksForm,
                    zone: context.user?.timeZone ?? "UTC", app: context.app
                ).map { ThanksViews.render($0, csrf: context.csrfToken) } ?? ""),
            status: status)
    }

    // MARK: Timeline and people

    static func timelineView(_ db: Connection, _ scope: OccasionScope, zone: String, csrf: String?) throws -> TimelineView {
        let rows = try OccasionStore.timeline(db, occasionID: scope.id)
        let gifts = try OccasionStore.gifts(db, occasionID: scope.id)
        let media = Dictionary(grouping: try OccasionMediaStore.items(db, occasionID: scope.id), by: { $0.giftID ?? -($0.challengeID ?? 0) })
        // Photos and players on the timeline: an unlocked gift's for the
        // celebrant, its author and the host; a proof photo for everyone.
        func mediaFor(_ row: OccasionStore.TimelineRow) -> HTML? {
            guard let subject = row.subjectID else { return nil }
            if row.kind == "gift", let gift = gifts.first(where: { $0.id == subject }), let items = media[subject], scope.canRead(gift) {
                return MediaViews.render(
                    OccasionMedia.views(items, occasionID: scope.id, giver: FormerMember.name(row.giftAuthor), removable: false), csrf: csrf)
            }
            if row.kind == "challenge" || row.kind == "dare", let items = media[-subject] {
                return MediaViews.render(
                    OccasionMedia.views(items, occasionID: scope.id, giver: "the celebrant", removable: false), csrf: csrf)
            }
            return nil
        }
        let timed = rows.map { row -> (at: Int64, entry: TimelineEntryView) in
            let kind = TimelineEntryView.Kind(rawValue: row.kind) ?? .challenge
            let title: String
            var detail: String? = nil
            switch kind {
            case .challenge, .dare:
                title =
                    row.challengeTitle
                    ?? (row.departed
                        ? "A \(kind == .dare ? "dare" : "challenge") by \(FormerMember.phrase)"
                        : "A \(kind == .dare ? "dare" : "challenge") (removed)")
                if row.chosenOption == "b", let optionB = row.optionB { detail = "Option B: \(optionB)" }
                if row.byHost { detail = "Marked done by the host" }
            case .gift:
                if let giftKind = row.giftKind {
                    // A giver no longer in the occasion is named as the gift page names them.
                    title = "\(GiftKind(rawValue: giftKind)?.label ?? "Gift") from \(FormerMember.name(row.giftAuthor))"
                } else if row.departed {
                    title = "\(row.departedGiftKind.flatMap(GiftKind.init(rawValue:))?.label ?? "A gift") from \(FormerMember.phrase)"
                } else {
                    title = "A gift (removed)"
                }
                if row.byHost { detail = "Unlocked by the host" }
            case .adjustment:
                title = row.points >= 0 ? "Bonus points" : "Points taken away"
                detail = row.adjustmentReason
            case .finale:
                title = "The finale"
                detail = row.byHost ? "Called by the host" : "Every gift unlocked"
            case .thanks:
                title = "A thank-you"  // thank-yous come from their own table, never from a row
            }
            let time = TimeText.local(row.at, zone: zone)
            return (row.at, TimelineEntryView(
                id: row.id, kind: kind, title: title, detail: detail, points: row.points, when: time.human, isoTime: time.machine,
                media: mediaFor(row)))
        }
        // Thank-yous live in their own table; they join the path by time.
        let thanks = try OccasionThanks.timelineEntries(
            db, scope: scope, gifts: gifts, members: try OccasionStore.members(db, occasionID: scope.id), zone: zone, csrf: csrf)
        let entries = (timed + thanks).enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element.entry)
        let offered = gifts.filter(\.isOffered)
        let everyGift = !offered.isEmpty && offered.allSatisfy { $0.state == .unlocked }
        return TimelineView(
            entries: entries,
            badge: BadgeView(
                unlocked: offered.filter { $0.state == .unlocked }.count, offered: offered.count, isOpen: scope.occasion.finaleAt != nil,
                celebrantName: scope.occasion.celebrantName, message: scope.occasion.kind.celebration(for: scope.occasion.celebrantName, everyGift: everyGift)),
            seed: scope.id)
    }

    static func timeline(_ context: RequestContext) throws -> Response {
        let zone = context.user?.timeZone ?? "UTC"
        let (scope, frame, view) = try prepare(context) { db, scope in
            try timelineView(db, scope, zone: zone, csrf: context.csrfToken)
        }
        return context.app.page(
            OccasionScreens.timeline(
                context: frame, header: OccasionBook.header(scope, context: context), view: view,
                keepsakeURL: scope.role.canKeep ? OccasionKeepsake.download.path(scope.id) : nil))
    }

    static func people(_ context: RequestContext) throws -> Response {
        let (scope, frame, members) = try prepare(context) { db, scope in try OccasionStore.members(db, occasionID: scope.id) }
        return context.app.page(
            OccasionScreens.people(
                context: frame, header: OccasionRoutes.header(scope), people: persons(members, scope: scope, app: context.app, zone: context.user?.timeZone)))
    }

    /// Members as the viewer sees them: names, avatars and roles for all;
    /// how and when each joined, and the remove button, for the host only.
    static func persons(_ members: [OccasionMember], scope: OccasionScope, app: KithApp, zone: String?) -> [OccasionScreens.Person] {
        members.map { member in
            let isYou = member.userID == scope.viewer.userID
            let role = member.role == .celebrant ? scope.occasion.kind.celebrantLabel : member.role.label
            var details: String? = nil
            if scope.role.canSeeJoinDetails {
                let when = TimeText.local(member.joinedAt, zone: zone ?? "UTC").human
                details = member.joinedVia == "created" ? "Created the occasion, \(when)" : "Joined \(when) with code \(member.joinedVia)"
            }
            let remove = scope.role.canSeeJoinDetails && !isYou && member.role != .host
            return OccasionScreens.Person(
                name: member.displayName + (isYou ? " (you)" : ""), avatarURL: Avatars.avatarURL(member.avatar, displayName: member.accountName, assets: app.assets), roleLabel: role,
                joinDetails: details, removeAction: remove ? HostRoutes.remove.path(scope.id, member.userID) : nil)
        }
    }
}
