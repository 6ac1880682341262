import KithHTTP
import KithStorage

/// An occasion as the viewer may see it. `load` is the one place that
/// decides: a member gets the occasion with their role, everyone else nil,
/// which every route turns into 404. What a member may *do* is then asked
/// of their role (`require`), which answers 403 with a reason, since the
/// member already knows the occasion exists.
public struct OccasionScope: Scope {
    public let occasion: Occasion
    public let viewer: OccasionMember

    public var role: OccasionRole { viewer.role }
    public var id: Int64 { occasion.id }

    public static func load(_ id: Int64, for user: User, in db: some Queryable) throws -> OccasionScope? {
        guard let occasion = try OccasionStore.occasion(db, id: id),
            let member = try OccasionStore.membership(db, occasionID: id, userID: user.id)
        else { return nil }
        return OccasionScope(occasion: occasion, viewer: member)
    }

    // MARK: What this member may see
    //
    // The one statement of who sees which challenge and gift; pages,
    // actions and media serving all ask here.

    /// The host's challenges are everyone's; a dare is its author's and the
    /// host's until the celebrant finds it, then everyone's.
    func canSee(_ challenge: Challenge) -> Bool {
        guard challenge.kind == .dare else { return true }
        return challenge.authorID == viewer.userID || role.canSeeAllDares || challenge.discoveredAt != nil
    }

    /// Knows the gift exists: its author always, the host once it is sent,
    /// every member once it is on offer.
    func knowsOf(_ gift: Gift) -> Bool {
        gift.isOffered || canRead(gift)
    }

    /// May read the gift's words and media: its author always, the host once
    /// it is sent (to price and moderate it), the celebrant once unlocked,
    /// and every member once unlocked while the shared book is open.
    func canRead(_ gift: Gift) -> Bool {
        gift.authorID == viewer.userID || (role.canModerate && gift.state != .draft)
            || ((role.canPlay || OccasionBook.isOpen(occasion)) && gift.state == .unlocked)
    }

    /// Refuses the action unless the role allows it.
    func require(_ allowed: (OccasionRole) -> Bool, _ message: String) throws {
        guard allowed(role) else { throw HTTPError(.forbidden, message) }
    }

    /// Refuses changes to the game itself once the host has closed the occasion.
    func requireOpen() throws {
        guard occasion.isOpen else {
            throw HTTPError(.conflict, "This occasion is closed. The host can reopen it from the host panel.")
        }
    }

    /// The live topic every page of this occasion follows.
    var topic: String { OccasionRoutes.topic(id) }
}
