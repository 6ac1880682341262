import KithHTTP
import KithTemplates

extension SiteLinks {
    /// Every named page at its route's path. The switch is exhaustive, so a
    /// page added to `SiteLinks.Page` does not build until it has a route.
    static let routes = SiteLinks { page in
        switch page {
        case .home: HomeRoutes.home.path()
        case .manifest: SystemRoutes.manifest.path()
        case .liveStream: LiveRoutes.stream.path()
        case .join: InviteRoutes.form.path()
        case .joinLookup: InviteRoutes.lookup.path()
        case .signUpForm: AccountRoutes.signUpForm.path()
        case .signUp: AccountRoutes.signUp.path()
        case .signInForm: AccountRoutes.signInForm.path()
        case .signIn: AccountRoutes.signIn.path()
        case .signOutConfirm: AccountRoutes.signOutConfirm.path()
        case .signOut: AccountRoutes.signOut.path()
        case .signOutEverywhere: AccountRoutes.signOutEverywhere.path()
        case .claimForm: AccountRoutes.claimForm.path()
        case .claim: AccountRoutes.claim.path()
        case .recoverForm: RecoveryRoutes.recoverForm.path()
        case .recover: RecoveryRoutes.recover.path()
        case .settings: SettingsRoutes.show.path()
        case .saveProfile: SettingsRoutes.saveProfile.path()
        case .saveAppearance: SettingsRoutes.saveAppearance.path()
        case .passwordForm: SettingsRoutes.password.path()
        case .savePassword: SettingsRoutes.savePassword.path()
        case .signOutOthers: SettingsRoutes.signOutOthers.path()
        case .newRecoveryCodes: SettingsRoutes.newRecoveryCodes.path()
        case .continueStart: RecoveryRoutes.continueStart.path()
        case .deleteAccountForm: RecoveryRoutes.deleteForm.path()
        case .deleteAccount: RecoveryRoutes.delete.path()
        case .pushKey: PushRoutes.key.path()
        case .pushSubscribe: PushRoutes.subscribe.path()
        case .pushUnsubscribe: PushRoutes.unsubscribe.path()
        case .serviceWorker: PushRoutes.serviceWorker.path()
        case .inbox: NotificationRoutes.inbox.path()
        case .inboxCount: NotificationRoutes.count.path()
        case .inboxList: NotificationRoutes.list.path()
        }
    }
}

extension SiteLinks {
    /// Sign in, then come back to `path` (a local path, as `next` requires).
    func signIn(returningTo path: String) -> String {
        self[.signInForm] + "?next=" + PercentEncoding.encodeQueryComponent(path)
    }
}
