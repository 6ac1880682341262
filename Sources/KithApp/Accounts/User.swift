import KithStorage

/// A person using Kith: a password account, or a guest who arrived through
/// an invite and may claim the account later.
public struct User: Sendable, Equatable {
    public let id: Int64
    public var displayName: String
    /// As typed; nil for a guest.
    public var username: String?
    public var email: String?
    public var timeZone: String
    public var avatar: String
    public var avatarColour: String
    public var theme: ThemePreference
    public var numberStyle: NumberStyle
    public var mustChangePassword: Bool

    public var isGuest: Bool { username == nil }

    public enum ThemePreference: String, Sendable, DatabaseValueConvertible, CaseIterable {
        case system, light, dark
    }

    public enum NumberStyle: String, Sendable, DatabaseValueConvertible, CaseIterable {
        case arabic, roman, stick
    }

    /// The columns `init(row:)` reads, for `SELECT \(User.columns) FROM users`.
    static let columns: SQL = """
        users.id, users.display_name, users.username, users.email, users.time_zone, users.avatar,
        users.avatar_colour, users.theme, users.number_style, users.must_change_password
        """

    init(row: Row) throws {
        id = try row.get("id")
        displayName = try row.get("display_name")
        username = try row.get("username")
        email = try row.get("email")
        timeZone = try row.get("time_zone")
        avatar = try row.get("avatar")
        avatarColour = try row.get("avatar_colour")
        theme = try row.get("theme")
        numberStyle = try row.get("number_style")
        mustChangePassword = try row.get("must_change_password")
    }
}
