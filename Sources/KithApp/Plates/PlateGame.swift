import KithHTTP
import KithStorage

/// How a game's spots are drawn. The mode never reaches the spots: it is
/// read only when a page is rendered, so switching it migrates nothing.
public enum PlateMode: String, Sendable, DatabaseValueConvertible, CaseIterable {
    /// A board per player, and a race.
    case competitive
    /// One shared board, each state credited to whoever spotted it first.
    case collaborative

    var label: String {
        switch self {
        case .competitive: "Competitive"
        case .collaborative: "Collaborative"
        }
    }
}

/// A player's place in a game, and what it allows.
public enum PlateRole: String, Sendable, DatabaseValueConvertible {
    case host, player

    var canRename: Bool { self == .host }
    var canSwitchMode: Bool { self == .host }
    var canChangeRules: Bool { self == .host }
    var canRotateCode: Bool { self == .host }
    var canRemovePlayers: Bool { self == .host }
    /// Ending, resuming and starting the next trip: one decision, since each
    /// changes which board everybody plays on.
    var canManageTrips: Bool { self == .host }
}

/// Which regions a game counts. Rulesets are rows (`plate_rulesets`, with
/// their regions and each region's points in `plate_ruleset_regions`);
/// these are the ones the game offers, named as stored. A game picks one
/// from two choices: which countries' plates count, and whether DC does.
enum PlateRuleset {
    static let states = "us50"
    static let statesAndDC = "us50dc"
    static let statesAndCanada = "us50ca"
    static let statesDCAndCanada = "us50dcca"
    static let statesCanadaAndMexico = "us50camx"
    static let statesDCCanadaAndMexico = "us50dccamx"

    static func name(countries: PlateCountries, dc: Bool) -> String {
        switch countries {
        case .us: dc ? statesAndDC : states
        case .usCanada: dc ? statesDCAndCanada : statesAndCanada
        case .usCanadaMexico: dc ? statesDCCanadaAndMexico : statesCanadaAndMexico
        }
    }

    static func countries(_ ruleset: String) -> PlateCountries {
        switch ruleset {
        case statesAndCanada, statesDCAndCanada: .usCanada
        case statesCanadaAndMexico, statesDCCanadaAndMexico: .usCanadaMexico
        default: .us
        }
    }

    static func countsDC(_ ruleset: String) -> Bool {
        [statesAndDC, statesDCAndCanada, statesDCCanadaAndMexico].contains(ruleset)
    }
}

/// Whose plates count.
enum PlateCountries: String, CaseIterable {
    case us
    case usCanada = "us-ca"
    case usCanadaMexico = "us-ca-mx"
}

/// How a game scores: a point a region, or the ruleset's points, which
/// make rare plates (Hawaii, the territories) worth more.
public enum PlateScoring: String, Sendable, DatabaseValueConvertible, CaseIterable {
    case count, rarity
}

/// A game as one of its players sees it: the game, and the viewer's place
/// in it. `load` is the only place that decides who may see a game; anyone
/// who is not a player (or a game that does not exist) gets nil, so every
/// route answers outsiders with 404.
public struct PlateGameScope: Scope {
    public let id: Int64
    public let name: String
    public let mode: PlateMode
    public let ruleset: String
    public let scoring: PlateScoring
    public let role: PlateRole
    public let userID: Int64

    public static func load(_ id: Int64, for user: User, in db: some Queryable) throws -> PlateGameScope? {
        try PlateStore.scope(db, gameID: id, userID: user.id)
    }

    /// The live topic every page of this game follows.
    var topic: String { PlateRoutes.topic(id) }
    /// The notification scope ("game:12"): digests and mutes are per game.
    var notificationScope: String { PlateRoutes.notificationScope(id) }
}
