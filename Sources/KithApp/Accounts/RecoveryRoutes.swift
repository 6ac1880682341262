import KithHTTP

/// Ways back in without email, and leaving: recovery codes, reset links,
/// continuing in another browser, deleting the account.
enum RecoveryRoutes {
    static func register(on app: KithApp) {}
}
