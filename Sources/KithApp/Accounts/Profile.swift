import KithStorage
import KithTemplates

/// Someone as others see them beside what they share: a tally's owner, its
/// last updater, a friend. Tallies and Friends both list people this way.
public struct Profile: Sendable, Equatable {
    public var id: Int64
    public var displayName: String
    public var username: String?
    public var avatar: String
    public var avatarColour: String

    /// From `id, display_name, username, avatar, avatar_colour` of `users`.
    init(row: Row) throws {
        self.init(
            id: try row.get("id"), displayName: try row.get("display_name"), username: try row.get("username"),
            avatar: try row.get("avatar"), avatarColour: try row.get("avatar_colour"))
    }

    init(id: Int64, displayName: String, username: String?, avatar: String, avatarColour: String) {
        self.id = id
        self.displayName = displayName
        self.username = username
        self.avatar = avatar
        self.avatarColour = avatarColour
    }
}

extension Profile {
    /// As pages that list people draw them: the avatar's address and the
    /// colour of its ring.
    func shown(in app: KithApp) -> TallyPages.Person {
        TallyPages.Person(
            id: id, name: displayName, username: username,
            avatarURL: Avatars.avatarURL(avatar, displayName: displayName, assets: app.assets),
            colour: Avatars.colour(named: avatarColour)?.id ?? "purple")
    }
}
