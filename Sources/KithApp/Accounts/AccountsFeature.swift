import KithHTTP

/// Accounts: signing up, in and out, guests kept as accounts, settings,
/// recovery, other browsers, and deleting an account (which runs every
/// feature's purge).
enum AccountsFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("accounts")
        feature.endpoints = AccountRoutes.endpoints(app) + SettingsRoutes.endpoints(app) + RecoveryRoutes.endpoints(app)
        feature.requestGate = newPasswordFirst
        return feature
    }

    /// Signed in with a recovery code or a reset link: a new password comes
    /// before anything else.
    static let newPasswordFirst: RequestGate = { user, route in
        guard user.mustChangePassword, !allowedBeforeNewPassword.contains(route) else { return }
        var headers = HTTPHeaders()
        headers.add("Location", SettingsRoutes.password.path())
        throw HTTPError(.seeOther, "Please choose a new password first.", headers: headers)
    }

    /// What someone who must choose a new password may still do. Static
    /// files and health checks run inline, carry no identity and so never
    /// meet this gate; the manifest has an identity but changes nothing.
    static let allowedBeforeNewPassword: Set<Route> = [
        SettingsRoutes.password, SettingsRoutes.savePassword, AccountRoutes.signOut, SystemRoutes.manifest,
    ]
}
