import KithHTTP

/// Accounts: signing up, in and out, guests kept as accounts, settings,
/// recovery, other browsers, and deleting an account (which runs every
/// feature's purge).
enum AccountsFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("accounts")
        feature.endpoints = AccountRoutes.endpoints(app) + SettingsRoutes.endpoints(app) + RecoveryRoutes.endpoints(app)
        return feature
    }
}
