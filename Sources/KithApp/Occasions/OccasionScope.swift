import KithHTTP

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

    public static func load(_ id: Int64, for user: User, in app: KithApp) throws -> OccasionScope? {
        try app.database.read { db in
            guard let occasion = try OccasionStore.occasion(db, id: id),
                let member = try OccasionStore.membership(db, occasionID: id, userID: user.id)
            else { return nil }
            return OccasionScope(occasion: occasion, viewer: member)
        }
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
