import KithHTTP
import KithStorage

/// What a person may do with a tally. The owner does everything; a friend
/// with edit permission changes the count (increment, set, reset now); a
/// friend with view permission only looks.
public enum TallyRole: String, Sendable, DatabaseValueConvertible {
    case owner, edit, view

    var canChangeCount: Bool { self != .view }
    /// Rename, share, schedule resets, fireworks, delete.
    var canManage: Bool { self == .owner }
    /// Anyone but the owner may leave; the owner deletes instead.
    var canLeave: Bool { self != .owner }
}

/// A tally as one person sees it: the row, the owner's face and name, who
/// last changed it, and this person's role. `Tally.load` is the one place
/// that decides who may see a tally: its owner and the friends it is shared
/// with; everybody else gets nil, so every tally route answers them 404.
public struct Tally: Scope, Sendable, Equatable {
    public let id: Int64
    public var name: String
    public var count: Int64
    public var fireworks: Bool
    /// What one tap adds, chosen by the owner (the server adds it; the page
    /// shows it at once).
    public var step: Int64 = 1
    public var schedule: TallyResetSchedule
    public var nextResetAt: Int64?
    public var version: Int64
    public var createdAt: Int64
    public var updatedAt: Int64
    public var owner: Person
    /// Nil when Kith itself changed it last (a scheduled reset) or that
    /// person's account is gone.
    public var updatedBy: Person?
    /// The last change was made by someone whose account is gone (so "by a
    /// former member", where a nil `updatedBy` alone would read "by Kith").
    public var updatedByFormerMember: Bool = false
    public var role: TallyRole
    /// The version this viewer saw last; nil if they never opened it.
    public var seenVersion: Int64?

    /// Someone Kith shows beside a tally: owner, updater, friend.
    public typealias Person = Profile

    public static func load(_ id: Int64, for user: User, in db: some Queryable) throws -> Tally? {
        try TallyStore.tally(db, id: id, viewerID: user.id)
    }

    /// Changed by someone else since this viewer last looked: the row
    /// flashes that person's avatar.
    public var changedByOtherSinceSeen: Person? {
        guard let updatedBy, updatedBy.id != viewerID else { return nil }
        guard let seenVersion else { return updatedBy }
        return version > seenVersion ? updatedBy : nil
    }

    /// The viewer's id, kept for `changedByOtherSinceSeen`.
    public var viewerID: Int64

    /// The topic every page showing this tally in full follows.
    static func topic(_ id: Int64) -> String { LiveTopics.name("tally", id) }
    /// The topic of one person's list of tallies.
    static func listTopic(_ userID: Int64) -> String { LiveTopics.name("tallies", userID) }
}
