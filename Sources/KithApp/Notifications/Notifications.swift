import KithHTTP
import KithStorage
import KithTemplates
import Synchronization

/// The inbox and the digest engine that feeds it.
///
/// A flurry of activity must not become a flurry of pings. A feature records
/// each event (`record(_:in:)`) inside the transaction that made the change;
/// every recipient gets one pending digest per scope and kind, which grows
/// while the scope is busy. The sweeper delivers a digest as ONE inbox entry
/// once its scope has been quiet for `quietPeriod`, or once its first event
/// is `maximumDelay` old, whichever comes first.
///
/// Features say how their events read by registering a kind:
///
///     notifications.register(kind: "plate.spot") { digest in
///         "\(Notifications.listing(digest.actorNames)) spotted \(Notifications.listing(digest.subjects)) in \(digest.scopeTitle)"
///     }
public final class Notifications: Sendable {
    /// Something that happened, to tell `recipients` about.
    public struct Event: Sendable, Equatable {
        /// A registered kind: `plate.spot`, `occasion.gift`, `tally.change`.
        public var kind: String
        /// What the event belongs to (`game:12`): the quiet period is kept
        /// per scope, and a person mutes a scope.
        public var scope: String
        /// The scope's name as people know it ("Summer Road Trip").
        public var scopeTitle: String
        /// Who acted; they are never told about their own event. Nil when
        /// Kith itself acted (a timer, a scheduled unlock).
        public var actorID: Int64?
        /// The actor's display name at the time ("Dad").
        public var actorName: String
        /// What the event was about ("Idaho").
        public var subject: String
        /// Where the notification leads: a local path (`/games/12`).
        public var link: String
        /// Everyone who should hear of it; the actor is dropped if listed.
        public var recipients: [Int64]

        public init(
            kind: String, scope: String, scopeTitle: String, actorID: Int64?, actorName: String, subject: String, link: String,
            recipients: [Int64]
        ) {
            self.kind = kind
            self.scope = scope
            self.scopeTitle = scopeTitle
            self.actorID = actorID
            self.actorName = actorName
            self.subject = subject
            self.link = link
            self.recipients = recipients
        }
    }

    /// One event inside a digest, as it was recorded.
    public struct DigestEvent: Sendable, Equatable {
        public var actorID: Int64?
        public var actorName: String
        public var subject: String
        public var link: String
        public var at: Int64
    }

    /// What a kind's wording is given: the coalesced events of one digest
    /// for one recipient, oldest first.
    public struct Digest: Sendable, Equatable {
        public var kind: String
        public var scope: String
        public var scopeTitle: String
        public var firstEventAt: Int64
        public var lastEventAt: Int64
        public var events: [DigestEvent]

        /// Everyone who acted, each once, in the order they first did.
        public var actorNames: [String] { Notifications.distinct(events.map(\.actorName)) }
        /// Every subject, each once, in the order they first came up.
        public var subjects: [String] { Notifications.distinct(events.map(\.subject)) }
        /// The newest event's deep link: where the latest news is.
        public var link: String { events.last?.link ?? "/inbox" }
    }

    /// A notification that has just reached someone's inbox, for channels
    /// beyond the page (Web Push).
    public struct Delivered: Sendable, Equatable {
        public var notificationID: Int64
        public var userID: Int64
        public var title: String
        public var body: String
        /// A local path; prefix the public base URL for an absolute link.
        public var url: String
    }

    /// Turns one digest into the sentence the inbox shows.
    public typealias Wording = @Sendable (Digest) -> String

    /// How long a scope must go without events before its digests go out.
    public static let quietPeriod: Int64 = 120
    /// The longest a digest is ever held, however busy its scope.
    public static let maximumDelay: Int64 = 300
    /// How often the sweeper looks for due digests.
    static let sweepInterval = 5.0
    /// Digests delivered per write transaction, so one sweep after a long
    /// outage never holds the writer for long.
    static let sweepBatch = 200

    let database: Database
    let live: LiveHub
    let clock: @Sendable () -> Int64
    private let kinds = Mutex<[String: Wording]>([:])
    private let observers = Mutex<[@Sendable (Delivered) -> Void]>([])
    /// Serialises sweeps: the thread and a test may both call `sweep(now:)`.
    private let sweeping = Mutex(())
    /// Made at the first `start`: its work is this object's own sweep.
    private let sweeper = Mutex<PeriodicTask?>(nil)
    /// The app's logger is not handed to this type; failures of the sweeper
    /// thread still need to reach the operator.
    private let logger = Logger()

    init(database: Database, live: LiveHub, clock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.live = live
        self.clock = clock
    }

    // MARK: Kinds and observers

    /// Says how digests of `kind` read. Register each kind once, while the
    /// app is built, before anything records it.
    public func register(kind: String, wording: @escaping Wording) {
        kinds.withLock {
            precondition($0[kind] == nil, "notification kind registered twice: \(kind)")
            $0[kind] = wording
        }
    }

    public func isRegistered(kind: String) -> Bool { kinds.withLock { $0[kind] != nil } }

    /// Called for every delivered notification, after its commit, on the
    /// sweeper's thread. Observers must not block for long.
    public func addDeliveryObserver(_ observer: @escaping @Sendable (Delivered) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    // MARK: Recording

    /// Fans `event` out into pending digests, inside the caller's
    /// transaction: one per recipient (never the actor, nobody who muted the
    /// scope), opened or extended.
    public func record(_ event: Event, in tx: Transaction) throws {
        precondition(isRegistered(kind: event.kind), "notification kind not registered: \(event.kind)")
        let now = clock()
        try NotificationStore.touchScope(tx, scope: event.scope, now: now)
        var seen: Set<Int64> = []
        for recipient in event.recipients where recipient != event.actorID && seen.insert(recipient).inserted {
            try NotificationStore.append(tx, event: event, recipient: recipient, now: now)
        }
    }

    // MARK: Mutes

    /// Stops `scope` from notifying `userID`, dropping what already waits.
    public func mute(scope: String, for userID: Int64, in tx: Transaction) throws {
        try NotificationStore.mute(tx, userID: userID, scope: scope, now: clock())
    }

    public func unmute(scope: String, for userID: Int64, in tx: Transaction) throws {
        try NotificationStore.unmute(tx, userID: userID, scope: scope)
    }

    /// Takes back what an actor did (a spot undone) from the digests still
    /// waiting, so nobody hears of something that no longer happened.
    /// Delivered notifications stay as they are.
    public func withdraw(kind: String, scope: String, actorID: Int64, subject: String, in tx: Transaction) throws {
        try NotificationStore.withdraw(tx, kind: kind, scope: scope, actorID: actorID, subject: subject)
    }

    /// Drops the digests waiting for `userID` in `scope`, without muting
    /// it: they have left, and news of a place they can no longer open
    /// would lead nowhere.
    public func discardPending(scope: String, for userID: Int64, in tx: Transaction) throws {
        try NotificationStore.discardPending(tx, userID: userID, scope: scope)
    }

    public func isMuted(scope: String, for userID: Int64) throws -> Bool {
        try database.read { try isMuted(scope: scope, for: userID, in: $0) }
    }

    /// The same, inside a page's own read snapshot.
    public func isMuted(scope: String, for userID: Int64, in db: some Queryable) throws -> Bool {
        try NotificationStore.mutedScopes(db, userID: userID, among: [scope]).contains(scope)
    }

    // MARK: Delivering

    /// Delivers every digest due at `now`: one inbox entry each, the digest
    /// gone, the recipients' inbox topics told after the commit, then the
    /// delivery observers. The sweeper calls this; tests call it with a
    /// clock of their own. Returns what was delivered.
    ///
    /// Exactly once across instances: a batch is chosen and delivered in one
    /// write transaction, which on PostgreSQL holds the one write lock every
    /// instance takes, so a sweep elsewhere waits and then finds the digests
    /// gone; an instance dying mid-batch rolls it back, and the next sweep on
    /// any instance delivers it. Web Push, after the commit, is at most once:
    /// only the instance that committed the entry sends it, and a death
    /// between the commit and the send loses that push. The inbox entry, its
    /// badge and its live update are the durable news; a push is a nudge, and
    /// a nudge lost once does less harm than every phone buzzing twice, which
    /// at-least-once pushes would risk.
    @discardableResult
    public func sweep(now: Int64) throws -> [Delivered] {
        try sweeping.withLock { _ in
            var all: [Delivered] = []
            while true {
                let batch = try deliverBatch(now: now)
                all += batch.delivered
                // Observers only once the batch is committed, and outside the
                // transaction: a push service may take its time.
                let listeners = observers.withLock { $0 }
                for delivered in batch.delivered {
                    for listener in listeners { listener(delivered) }
                }
                if batch.found < Self.sweepBatch { break }
            }
            return all
        }
    }

    /// Delivers at once what waits for `userIDs` of `kind` in `scope`,
    /// whatever the quiet period: for news someone expects the moment it
    /// happens (their gift was just opened). Call it after the commit that
    /// recorded the event. Returns what was delivered.
    @discardableResult
    public func deliverNow(kind: String, scope: String, to userIDs: [Int64]) throws -> [Delivered] {
        try sweeping.withLock { _ in
            let batch = try deliver(now: clock()) { tx in
                try NotificationStore.pendingDigests(tx, kind: kind, scope: scope, userIDs: userIDs)
            }
            let listeners = observers.withLock { $0 }
            for delivered in batch.delivered {
                for listener in listeners { listener(delivered) }
            }
            return batch.delivered
        }
    }

    private func deliverBatch(now: Int64) throws -> (found: Int, delivered: [Delivered]) {
        try deliver(now: now) { tx in
            try NotificationStore.dueDigests(
                tx, quietBefore: now - Self.quietPeriod, capBefore: now - Self.maximumDelay, limit: Self.sweepBatch)
        }
    }

    private func deliver(
        now: Int64, _ select: (Transaction) throws -> [NotificationStore.DueDigest]
    ) throws -> (found: Int, delivered: [Delivered]) {
        let live = self.live
        return try database.write { tx in
            let due = try select(tx)
            var delivered: [Delivered] = []
            for item in due {
                let digest = item.digest
                // Names are stored marked, so the inbox can say "a former
                // member" once someone is deleted (`FormerMember`); a push
                // leaves now, with the names as they are.
                var marked = digest
                for index in marked.events.indices {
                    if let actor = marked.events[index].actorID {
                        marked.events[index].actorName = FormerMember.marked(userID: actor, name: marked.events[index].actorName)
                    }
                }
                let stored = wording(for: marked)
                let body = try FormerMember.resolve(stored, in: tx)
                let id = try NotificationStore.deliver(
                    tx, digestID: item.id, userID: item.userID, kind: digest.kind, scope: digest.scope, title: digest.scopeTitle,
                    body: stored, url: digest.link, eventCount: max(digest.events.count, 1), now: now)
                delivered.append(Delivered(notificationID: id, userID: item.userID, title: digest.scopeTitle, body: body, url: digest.link))
            }
            try NotificationStore.forgetIdleScopes(tx)
            if !delivered.isEmpty { SweepHold.holdIfAsked() }
            let users = Set(delivered.map(\.userID)).sorted()
            tx.afterCommit {
                for user in users { live.publish(topic: Self.topic(for: user), fragments: Self.inboxFragments) }
            }
            return (due.count, delivered)
        }
    }

    /// The registered wording, or a plain sentence for a kind no longer
    /// registered (a digest that outlived the code that recorded it).
    func wording(for digest: Digest) -> String {
        if let wording = kinds.withLock({ $0[digest.kind] }) { return wording(digest) }
        let count = digest.events.count
        return count == 1 ? "Something new in \(digest.scopeTitle)" : "\(count) new things in \(digest.scopeTitle)"
    }

    // MARK: The inbox, for other features

    /// Tells the user's open pages that their inbox changed.
    func publishInboxChanged(for userID: Int64) {
        live.publish(topic: Self.topic(for: userID), fragments: Self.inboxFragments)
    }

    /// The live topic of one person's inbox.
    public static func topic(for userID: Int64) -> String { LiveTopics.name("inbox", userID) }
    static let inboxFragments: [FragmentID] = [.inboxCount, .inboxList]

    // MARK: The sweeper thread

    func start() {
        let task = sweeper.withLock { sweeper in
            // Weak: the thread must not keep a stopped app's database alive.
            let task = sweeper ?? PeriodicTask("kith-digests", every: Self.sweepInterval) { [weak self] in self?.sweepNow() }
            sweeper = task
            return task
        }
        task.start()
    }

    func stop() { sweeper.withLock { $0 }?.stop() }

    /// Waits, until `deadline` at most, for the sweep made at start (`PeriodicTask.waitForFirstRun`).
    func waitForStartSweep(until deadline: UInt64) -> Bool {
        sweeper.withLock { $0 }?.waitForFirstRun(until: deadline) ?? true
    }

    private func sweepNow() {
        do {
            try sweep(now: clock())
        } catch {
            logger.log(["level": "error", "msg": "notification sweep failed", "cause": String(describing: error)])
            logger.flush()
        }
    }

    // MARK: Wording helpers

    /// "Idaho", "Idaho and Ohio", "Idaho, Ohio and Utah", "Idaho, Ohio and
    /// 3 more": at most `limit` names, and a count for the rest (a count of
    /// one is just the name).
    public static func listing(_ items: [String], limit: Int = 2) -> String {
        let shown = items.count <= limit + 1 ? items : Array(items.prefix(limit))
        let rest = items.count - shown.count
        if rest > 0 { return shown.joined(separator: ", ") + " and \(rest) more" }
        switch shown.count {
        case 0: return ""
        case 1: return shown[0]
        default: return shown.dropLast().joined(separator: ", ") + " and " + shown[shown.count - 1]
        }
    }

    static func distinct(_ items: [String]) -> [String] {
        var seen: Set<String> = []
        return items.filter { seen.insert($0).inserted }
    }
}
