/// The app's own pages any page may link to, by name. Templates cannot see
/// the app's routes, so the app supplies the paths (from those routes), and
/// a template that names a page here cannot drift from the route serving it.
public struct SiteLinks: Sendable {
    /// Pages without parameters. Links into one occasion or game come from
    /// that page's model instead.
    public enum Page: Sendable, CaseIterable {
        case home, manifest, liveStream
        case join, joinLookup
        case signUpForm, signUp, signInForm, signIn, signOutConfirm, signOut, signOutEverywhere, claimForm, claim
        case recoverForm, recover
        case settings, saveProfile, saveAppearance, passwordForm, savePassword, signOutOthers, newRecoveryCodes
        case continueStart, deleteAccountForm, deleteAccount
        case pushKey, pushSubscribe, pushUnsubscribe, serviceWorker
        case inbox, inboxCount, inboxList
    }

    private let paths: [Page: String]

    /// `path` must answer every page; it is asked once for each, here.
    public init(_ path: (Page) -> String) {
        paths = Dictionary(uniqueKeysWithValues: Page.allCases.map { ($0, path($0)) })
    }

    public subscript(_ page: Page) -> String { paths[page]! }
}
