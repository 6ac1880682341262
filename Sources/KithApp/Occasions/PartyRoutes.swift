import KithHTTP
import KithStorage
import KithTemplates

/// Party mode: the unlocked gifts and the celebrant's proof photos as a
/// slideshow for the room. Who may open it follows who may read what it
/// shows: the host and the celebrant always (they read every unlocked gift
/// already), everyone else once the host opens the book — a contributor's
/// laptop must not put on screen what the book has not opened to them.
enum PartyRoutes {
    static let page = Route(.get, "/occasions/:occasion/party")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(page) { context in try render(context) }
    }

    static func mayOpen(_ scope: OccasionScope) -> Bool {
        scope.role.canManage || scope.role.canPlay || OccasionBook.isOpen(scope.occasion)
    }

    static func render(_ context: RequestContext) throws -> Response {
        let app = context.app
        let loaded = try context.load(OccasionScope.self, parameter: "occasion")
        guard mayOpen(loaded) else {
            throw HTTPError(.forbidden, "Party mode opens for everyone once the host opens the book. Until then the host or \(loaded.occasion.celebrantName) can start it.")
        }
        let (scope, frame, data) = try OccasionPages.prepare(context) { db, scope in
            (
                try OccasionStore.gifts(db, occasionID: scope.id), try OccasionStore.members(db, occasionID: scope.id),
                try OccasionMediaStore.items(db, occasionID: scope.id),
                try OccasionStore.challenges(db, occasionID: scope.id, kind: .challenge)
                    + OccasionStore.challenges(db, occasionID: scope.id, kind: .dare),
                try app.invites.code(db, kind: OccasionRoutes.contributorInvite, targetID: scope.id)
            )
        }
        let (gifts, members, media, challenges, code) = data
        let byGift = Dictionary(grouping: media, by: { $0.giftID ?? 0 })
        // The gifts in the order they were opened, then the proof photos.
        var slides = gifts.filter { $0.state == .unlocked && scope.canRead($0) }
            .sorted { ($0.unlockedAt ?? 0, $0.id) < ($1.unlockedAt ?? 0, $1.id) }
            .map { gift -> PartyPage.Slide in
                let giver = FormerMember.name(members.first { $0.userID == gift.authorID }?.displayName)
                return PartyPage.Slide(
                    id: "party-gift-\(gift.id)", title: "\(gift.kind.label) from \(giver)", detail: nil,
                    content: MediaViews.gift(
                        media: OccasionMedia.views(byGift[gift.id] ?? [], occasionID: scope.id, giver: giver, removable: false),
                        letter: gift.body, csrf: nil))
            }
        for item in media where item.giftID == nil && item.kind == .photo {
            guard let challenge = challenges.first(where: { $0.id == item.challengeID }), scope.canSee(challenge) else { continue }
            slides.append(
                PartyPage.Slide(
                    id: "party-photo-\(item.id)", title: challenge.title, detail: "\(scope.occasion.celebrantName) did it",
                    content: MediaViews.render(
                        OccasionMedia.views([item], occasionID: scope.id, giver: scope.occasion.celebrantName, removable: false), csrf: nil)))
        }
        // The contributor link the host would share, so latecomers can join from the room.
        let link = code.map { app.baseURL + InviteRoutes.preview.path($0) }
        var party = frame
        party.stylesheets.append("css/party.css")
        party.scripts = ["js/party.js", "js/media.js"]
        return app.page(
            PartyPage.render(
                context: party,
                model: PartyPage.Model(
                    name: scope.occasion.name, celebrantName: scope.occasion.celebrantName, slides: slides,
                    joinLink: scope.occasion.isOpen ? link : nil,
                    joinQRCode: link.map { QRCode.svg(for: $0, label: "QR code to join \(scope.occasion.name)") } ?? "",
                    leaveURL: OccasionRoutes.overview.path(scope.id), path: page.path(scope.id))))
    }
}
