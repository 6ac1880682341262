/// What occasion pages are drawn from. Routes build these from the store with
/// the viewer's rights already applied: a view never holds anything its
/// viewer may not see, so a template cannot leak it.

/// One entry on the living timeline, oldest first in `TimelineView.entries`.
public struct TimelineEntryView: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A host challenge completed (blue).
        case challenge
        /// A secret dare completed (blue, with a classified mark).
        case dare
        /// A gift unlocked (gold).
        case gift
        /// Points added or taken by the host, with a reason.
        case adjustment
        /// The finale: the badge opened.
        case finale
        /// The celebrant thanked a giver (worth no points).
        case thanks
    }

    public var id: Int64
    public var kind: Kind
    /// What happened, already worded: "Sang in the town square",
    /// "A letter from Sam". "Removed" when its content was deleted.
    public var title: String
    /// A second line, or nil: "Option B", "Reason: bonus for style".
    public var detail: String?
    /// Signed change to the balance: +20 earned, -30 spent, 0 for the finale.
    public var points: Int
    /// For people, in the viewer's time zone: "Sat 14 Nov, 18:05".
    public var when: String
    /// For `<time datetime>`: "2026-11-14T18:05:00Z".
    public var isoTime: String
    /// An unlocked gift's photos and players, for those who may see them.
    public var media: HTML?

    public init(
        id: Int64, kind: Kind, title: String, detail: String?, points: Int, when: String, isoTime: String, media: HTML? = nil
    ) {
        self.media = media
        self.id = id
        self.kind = kind
        self.title = title
        self.detail = detail
        self.points = points
        self.when = when
        self.isoTime = isoTime
    }
}

/// The final badge at the foot of the timeline.
public struct BadgeView: Sendable, Equatable {
    /// Gifts unlocked so far, and gifts on offer or unlocked: the glow
    /// grows with `unlocked / offered`.
    public var unlocked: Int
    public var offered: Int
    /// Open: every gift on offer is unlocked (and there is at least one),
    /// or the host called the finale.
    public var isOpen: Bool
    public var celebrantName: String
    /// Shown when open: "Happy birthday, Alex! Every gift is yours."
    public var message: String

    public init(unlocked: Int, offered: Int, isOpen: Bool, celebrantName: String, message: String) {
        self.unlocked = unlocked
        self.offered = offered
        self.isOpen = isOpen
        self.celebrantName = celebrantName
        self.message = message
    }
}

public struct TimelineView: Sendable, Equatable {
    public var entries: [TimelineEntryView]
    public var badge: BadgeView
    /// Seeds the decorative bokeh and sparkle positions, so one occasion's
    /// background looks the same on every render (the occasion's id).
    public var seed: Int64

    public init(entries: [TimelineEntryView], badge: BadgeView, seed: Int64) {
        self.entries = entries
        self.badge = badge
        self.seed = seed
    }
}

/// A gift as the carousel shows it to the viewer.
public struct GiftCardView: Sendable, Equatable {
    public enum State: String, Sendable {
        /// On offer, more than the balance: frosted, giver and kind only.
        case locked
        /// On offer and the balance covers it: pulsing gold.
        case affordable
        /// Unlocked: the full content.
        case unlocked
    }

    public var id: Int64
    public var giverName: String
    /// The giver's avatar image URL.
    public var giverAvatarURL: String
    /// "Letter", "Photos", "Video", "Voice note".
    public var kindLabel: String
    public var cost: Int
    public var state: State
    /// The gift itself, rendered (a letter's Markdown as HTML); nil unless unlocked.
    public var content: HTML?
    /// Where the unlock form posts; nil when the viewer cannot unlock it
    /// (not the celebrant, not affordable, or the occasion is closed).
    public var unlockAction: String?
    /// The gift's own page.
    public var detailURL: String

    public init(
        id: Int64, giverName: String, giverAvatarURL: String, kindLabel: String, cost: Int, state: State,
        content: HTML?, unlockAction: String?, detailURL: String
    ) {
        self.id = id
        self.giverName = giverName
        self.giverAvatarURL = giverAvatarURL
        self.kindLabel = kindLabel
        self.cost = cost
        self.state = state
        self.content = content
        self.unlockAction = unlockAction
        self.detailURL = detailURL
    }
}
