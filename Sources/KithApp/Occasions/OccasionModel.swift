import KithStorage

/// The kinds of occasion, each naming its celebrant in its own words (never
/// a gendered default).
public enum OccasionKind: String, Sendable, CaseIterable {
    case birthday, anniversary, graduation, farewell, bachelor

    public var label: String {
        switch self {
        case .birthday: "Birthday"
        case .anniversary: "Anniversary"
        case .graduation: "Graduation"
        case .farewell: "Farewell"
        case .bachelor: "Bachelor/ette party"
        }
    }

    /// What the person celebrated is called on every page.
    public var celebrantLabel: String {
        switch self {
        case .birthday: "Birthday star"
        case .anniversary: "Anniversary honoree"
        case .graduation: "Graduate"
        case .farewell: "Guest of honour"
        case .bachelor: "Soon-to-be-wed"
        }
    }

    /// The badge's message once it opens; `everyGift` when every gift on
    /// offer is unlocked (the host may call the finale before that).
    func celebration(for name: String, everyGift: Bool) -> String {
        let greeting =
            switch self {
            case .birthday: "Happy birthday, \(name)!"
            case .anniversary: "Happy anniversary, \(name)!"
            case .graduation: "Congratulations, \(name)!"
            case .farewell: "Go well, \(name)."
            case .bachelor: "Here's to you, \(name)!"
            }
        return everyGift ? greeting + " Every gift is yours." : greeting
    }
}

/// A person's one role in an occasion. What each role may do is asked here
/// and nowhere else: routes ask `can…`, never compare roles.
public enum OccasionRole: String, Sendable, CaseIterable {
    case host, contributor, celebrant

    public var label: String {
        switch self {
        case .host: "Host"
        case .contributor: "Contributor"
        case .celebrant: "Celebrant"
        }
    }

    /// Run the occasion: challenges, prices, invites, members, the finale.
    public var canManage: Bool { self == .host }
    /// Write a gift and a secret dare (the host is also a contributor).
    public var canContribute: Bool { self != .celebrant }
    /// Complete challenges and dares, unlock gifts.
    public var canPlay: Bool { self == .celebrant }
    /// See how and when each member joined, and remove them.
    public var canSeeJoinDetails: Bool { self == .host }
    /// Read reports, and every gift's content for moderation.
    public var canModerate: Bool { self == .host }
    /// See every dare before the celebrant finds it.
    public var canSeeAllDares: Bool { self == .host }
    /// Download the whole occasion as a keepsake.
    public var canKeep: Bool { self == .host || self == .celebrant }
    /// File a report about a gift or a challenge.
    public var canReport: Bool { true }
}

public enum ChallengeDifficulty: String, Sendable, CaseIterable {
    case easy, medium, hard
    public var label: String {
        switch self {
        case .easy: "Easy"
        case .medium: "Medium"
        case .hard: "Hard"
        }
    }
}

public enum ChallengeCategory: String, Sendable, CaseIterable {
    case physical, social, creative, sentimental, adventure
    public var label: String {
        switch self {
        case .physical: "Physical"
        case .social: "Social"
        case .creative: "Creative"
        case .sentimental: "Sentimental"
        case .adventure: "Adventure"
        }
    }
}

public enum GiftState: String, Sendable {
    case draft, submitted, onOffer = "on_offer", unlocked
}

public enum GiftKind: String, Sendable, CaseIterable {
    case letter, photos, video, voice
    public var label: String {
        switch self {
        case .letter: "Letter"
        case .photos: "Photos"
        case .video: "Video"
        case .voice: "Voice note"
        }
    }
}

/// An occasion as one member sees it: the occasion, and their place in it.
public struct Occasion: Sendable {
    public var id: Int64
    public var name: String
    public var kind: OccasionKind
    public var celebrantName: String
    public var date: String
    public var isOpen: Bool
    public var balance: Int
    public var dareMinPoints: Int
    public var dareMaxPoints: Int
    public var finaleAt: Int64?
    public var createdAt: Int64
    /// When the host opened the shared book (see `OccasionBook`); nil while closed.
    public var bookOpenedAt: Int64?
    /// The scheduled reveal (see `ScheduledReveal`): no unlock before it.
    public var revealAt: Int64?
    public var revealZone: String?

    static let columns: SQL = """
        o.id, o.name, o.kind, o.celebrant_name, o.date, o.is_open, o.balance, o.dare_min_points, o.dare_max_points,
        o.finale_at, o.created_at, o.book_opened_at, o.reveal_at, o.reveal_zone
        """

    init(row: Row) throws {
        id = try row.get("id")
        name = try row.get("name")
        kind = OccasionKind(rawValue: try row.get("kind")) ?? .birthday
        celebrantName = try row.get("celebrant_name")
        date = try row.get("date")
        isOpen = try row.get("is_open") as Int64 != 0
        balance = Int(try row.get("balance") as Int64)
        dareMinPoints = Int(try row.get("dare_min_points") as Int64)
        dareMaxPoints = Int(try row.get("dare_max_points") as Int64)
        finaleAt = try row.get("finale_at")
        createdAt = try row.get("created_at")
        bookOpenedAt = try row.get("book_opened_at")
        revealAt = try row.get("reveal_at")
        revealZone = try row.get("reveal_zone")
    }
}

public struct OccasionMember: Sendable, Equatable {
    public var userID: Int64
    public var role: OccasionRole
    /// What the others call them in this occasion, chosen when they joined.
    public var displayName: String
    /// Their account's display name, which their default avatar comes from.
    public var accountName: String
    public var avatar: String
    public var joinedAt: Int64
    public var joinedVia: String
}

public struct Challenge: Sendable {
    public enum Kind: String, Sendable { case challenge, dare }
    public var id: Int64
    public var kind: Kind
    public var authorID: Int64?
    public var title: String
    public var description: String
    public var optionB: String?
    public var points: Int
    public var difficulty: ChallengeDifficulty
    public var category: ChallengeCategory
    public var discoveredAt: Int64?
    public var completedAt: Int64?
    public var chosenOption: String?
    public var proofKind: String?
    public var proofText: String?

    public var isCompleted: Bool { completedAt != nil }

    static let columns: SQL = """
        c.id, c.kind, c.author_id, c.title, c.description, c.option_b, c.points, c.difficulty, c.category,
        c.discovered_at, c.completed_at, c.chosen_option, c.proof_kind, c.proof_text
        """

    init(row: Row) throws {
        id = try row.get("id")
        kind = Kind(rawValue: try row.get("kind")) ?? .challenge
        authorID = try row.get("author_id")
        title = try row.get("title")
        description = try row.get("description")
        optionB = try row.get("option_b")
        points = Int(try row.get("points") as Int64)
        difficulty = ChallengeDifficulty(rawValue: try row.get("difficulty")) ?? .medium
        category = ChallengeCategory(rawValue: try row.get("category")) ?? .social
        discoveredAt = try row.get("discovered_at")
        completedAt = try row.get("completed_at")
        chosenOption = try row.get("chosen_option")
        proofKind = try row.get("proof_kind")
        proofText = try row.get("proof_text")
    }
}

public struct Gift: Sendable {
    public var id: Int64
    public var authorID: Int64
    public var kind: GiftKind
    public var body: String
    public var state: GiftState
    public var cost: Int?
    public var position: Int
    public var submittedAt: Int64?
    public var unlockedAt: Int64?

    static let columns: SQL = "g.id, g.author_id, g.kind, g.body, g.state, g.cost, g.position, g.submitted_at, g.unlocked_at"

    init(row: Row) throws {
        id = try row.get("id")
        authorID = try row.get("author_id")
        kind = GiftKind(rawValue: try row.get("kind")) ?? .letter
        body = try row.get("body")
        state = GiftState(rawValue: try row.get("state")) ?? .draft
        cost = (try row.get("cost") as Int64?).map(Int.init)
        position = Int(try row.get("position") as Int64)
        submittedAt = try row.get("submitted_at")
        unlockedAt = try row.get("unlocked_at")
    }

    /// On offer or already unlocked: what the celebrant's carousel holds.
    public var isOffered: Bool { state == .onOffer || state == .unlocked }
}
