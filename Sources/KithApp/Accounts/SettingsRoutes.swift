import KithHTTP

/// Settings: profile, password, appearance, sessions, recovery codes.
enum SettingsRoutes {
    static let password = Route(.get, "/settings/password")
    static let savePassword = Route(.post, "/settings/password")

    static func register(on app: KithApp) {}
}
