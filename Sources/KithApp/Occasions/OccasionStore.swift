import KithStorage

/// Every SQL statement about occasions. Points change only here, each in
/// the transaction that records why, so the balance and the timeline never
/// disagree; the schema's CHECK refuses a negative balance outright.
enum OccasionStore {
    // MARK: Occasions and members

    struct NewOccasion {
        var name: String
        var kind: OccasionKind
        var celebrantName: String
        var date: String
        var hostName: String
    }

    static func create(_ tx: Transaction, _ new: NewOccasion, hostID: Int64, now: Int64) throws -> Int64 {
        let id = try tx.insertReturningID("""
            INSERT INTO occasions (name, kind, celebrant_name, date, created_at)
            VALUES (\(new.name), \(new.kind.rawValue), \(new.celebrantName), \(new.date), \(now))
            """)
        try tx.execute("""
            INSERT INTO occasion_members (occasion_id, user_id, role, display_name, joined_at, joined_via)
            VALUES (\(id), \(hostID), 'host', \(new.hostName), \(now), 'created')
            """)
        return id
    }

    static func occasion(_ db: some Queryable, id: Int64) throws -> Occasion? {
        try db.queryOne("SELECT \(Occasion.columns) FROM occasions o WHERE o.id = \(id)").map(Occasion.init(row:))
    }

    static let memberColumns: SQL =
        "m.user_id, m.role, m.display_name, u.display_name AS account_name, u.avatar, m.joined_at, m.joined_via"

    static func member(_ row: Row) throws -> OccasionMember {
        OccasionMember(
            userID: try row.get("user_id"), role: OccasionRole(rawValue: try row.get("role")) ?? .contributor,
            displayName: try row.get("display_name"), accountName: try row.get("account_name"), avatar: try row.get("avatar"),
            joinedAt: try row.get("joined_at"), joinedVia: try row.get("joined_via"))
    }

    static func membership(_ db: some Queryable, occasionID: Int64, userID: Int64) throws -> OccasionMember? {
        try db.queryOne("""
            SELECT \(memberColumns) FROM occasion_members m JOIN users u ON u.id = m.user_id
            WHERE m.occasion_id = \(occasionID) AND m.user_id = \(userID)
            """).map(member)
    }

    /// Host first, then the celebrant, then contributors in joining order.
    static func members(_ db: some Queryable, occasionID: Int64) throws -> [OccasionMember] {
        try db.query("""
            SELECT \(memberColumns) FROM occasion_members m JOIN users u ON u.id = m.user_id
            WHERE m.occasion_id = \(occasionID)
            ORDER BY CASE m.role WHEN 'host' THEN 0 WHEN 'celebrant' THEN 1 ELSE 2 END, m.joined_at, m.user_id
            """).map(member)
    }

    /// How many members, and whether the celebrant has joined: what the
    /// overview says of them, in one row however many have joined.
    static func memberCount(_ db: some Queryable, occasionID: Int64) throws -> (count: Int, celebrant: Bool) {
        let row = try db.queryOne("""
            SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN role = 'celebrant' THEN 1 ELSE 0 END), 0) AS celebrants
            FROM occasion_members WHERE occasion_id = \(occasionID)
            """)
        let celebrants: Int = try row?.get("celebrants") ?? 0
        return (try row?.get("n") ?? 0, celebrants > 0)
    }

    static func memberIDs(_ db: some Queryable, occasionID: Int64, roles: [OccasionRole]) throws -> [Int64] {
        try db.query("""
            SELECT user_id FROM occasion_members WHERE occasion_id = \(occasionID) AND role IN (\(list: roles.map(\.rawValue)))
            """).map { try $0.get("user_id") }
    }

    /// A signed-in person's occasions, newest first, for the dashboard.
    struct Listed: Sendable {
        var id: Int64
        var name: String
        var kind: OccasionKind
        var celebrantName: String
        var date: String
        var isOpen: Bool
        var role: OccasionRole
    }

    static func occasions(_ db: some Queryable, userID: Int64) throws -> [Listed] {
        try db.query("""
            SELECT o.id, o.name, o.kind, o.celebrant_name, o.date, o.is_open, m.role
            FROM occasion_members m JOIN occasions o ON o.id = m.occasion_id
            WHERE m.user_id = \(userID)
            ORDER BY o.is_open DESC, o.date DESC, o.id DESC
            """).map { row in
            Listed(
                id: try row.get("id"), name: try row.get("name"), kind: OccasionKind(rawValue: try row.get("kind")) ?? .birthday,
                celebrantName: try row.get("celebrant_name"), date: try row.get("date"), isOpen: try row.get("is_open"),
                role: OccasionRole(rawValue: try row.get("role")) ?? .contributor)
        }
    }

    /// Adds a member; false when they already had a role here.
    static func addMember(
        _ tx: Transaction, occasionID: Int64, userID: Int64, role: OccasionRole, via code: String, now: Int64
    ) throws -> Bool {
        try tx.execute("""
            INSERT INTO occasion_members (occasion_id, user_id, role, display_name, joined_at, joined_via)
            SELECT \(occasionID), id, \(role.rawValue), display_name, \(now), \(code) FROM users WHERE id = \(userID)
            ON CONFLICT DO NOTHING
            """) == 1
    }

    static func hasCelebrant(_ db: some Queryable, occasionID: Int64) throws -> Bool {
        try db.queryOne("SELECT 1 FROM occasion_members WHERE occasion_id = \(occasionID) AND role = 'celebrant'") != nil
    }

    static func removeMember(_ tx: Transaction, occasionID: Int64, userID: Int64) throws -> Bool {
        try tx.execute("DELETE FROM occasion_members WHERE occasion_id = \(occasionID) AND user_id = \(userID) AND role <> 'host'") == 1
    }

    /// Hands the host role to a contributor; the old host stays as a contributor.
    static func handOver(_ tx: Transaction, occasionID: Int64, from oldHost: Int64, to newHost: Int64) throws -> Bool {
        guard try tx.execute("""
            UPDATE occasion_members SET role = 'contributor'
            WHERE occasion_id = \(occasionID) AND user_id = \(oldHost) AND role = 'host'
            """) == 1
        else { return false }
        return try tx.execute("""
            UPDATE occasion_members SET role = 'host'
            WHERE occasion_id = \(occasionID) AND user_id = \(newHost) AND role = 'contributor'
            """) == 1
    }

    static func setOpen(_ tx: Transaction, occasionID: Int64, _ open: Bool) throws {
        try tx.execute("UPDATE occasions SET is_open = \(open) WHERE id = \(occasionID)")
    }

    static func setDareBounds(_ tx: Transaction, occasionID: Int64, min: Int, max: Int) throws {
        try tx.execute("UPDATE occasions SET dare_min_points = \(min), dare_max_points = \(max) WHERE id = \(occasionID)")
    }

    // MARK: Challenges and dares

    struct ChallengeFields {
        var title: String
        var description: String
        var optionB: String?
        var points: Int
        var difficulty: ChallengeDifficulty
        var category: ChallengeCategory
    }

    static func challenges(_ db: some Queryable, occasionID: Int64, kind: Challenge.Kind) throws -> [Challenge] {
        try db.query("""
            SELECT \(Challenge.columns) FROM occasion_challenges c
            WHERE c.occasion_id = \(occasionID) AND c.kind = \(kind.rawValue)
            ORDER BY c.completed_at IS NOT NULL, c.id
            """).map(Challenge.init(row:))
    }

    static func challenge(_ db: some Queryable, occasionID: Int64, id: Int64) throws -> Challenge? {
        try db.queryOne("""
            SELECT \(Challenge.columns) FROM occasion_challenges c WHERE c.occasion_id = \(occasionID) AND c.id = \(id)
            """).map(Challenge.init(row:))
    }

    static func dare(_ db: some Queryable, occasionID: Int64, authorID: Int64) throws -> Challenge? {
        try db.queryOne("""
            SELECT \(Challenge.columns) FROM occasion_challenges c
            WHERE c.occasion_id = \(occasionID) AND c.kind = 'dare' AND c.author_id = \(authorID)
            """).map(Challenge.init(row:))
    }

    static func addChallenge(_ tx: Transaction, occasionID: Int64, _ fields: ChallengeFields, now: Int64) throws -> Int64 {
        try tx.insertReturningID("""
            INSERT INTO occasion_challenges (occasion_id, kind, title, description, option_b, points, difficulty, category, created_at)
            VALUES (\(occasionID), 'challenge', \(fields.title), \(fields.description), \(fields.optionB), \(fields.points),
                    \(fields.difficulty.rawValue), \(fields.category.rawValue), \(now))
            """)
    }

    /// Edits an open challenge; a completed one keeps what was completed.
    static func updateChallenge(_ tx: Transaction, occasionID: Int64, id: Int64, _ fields: ChallengeFields) throws -> Bool {
        try tx.execute("""
            UPDATE occasion_challenges SET title = \(fields.title), description = \(fields.description),
                option_b = \(fields.optionB), points = \(fields.points), difficulty = \(fields.difficulty.rawValue),
                category = \(fields.category.rawValue)
            WHERE occasion_id = \(occasionID) AND id = \(id) AND kind = 'challenge' AND completed_at IS NULL
            """) == 1
    }

    static func deleteChallenge(_ tx: Transaction, occasionID: Int64, id: Int64) throws -> Bool {
        try tx.execute("""
            DELETE FROM occasion_challenges
            WHERE occasion_id = \(occasionID) AND id = \(id) AND kind = 'challenge' AND completed_at IS NULL
            """) == 1
    }

    /// Writes or rewrites the author's dare while it is still unfound.
    static func saveDare(
        _ tx: Transaction, occasionID: Int64, authorID: Int64, title: String, description: String, points: Int, now: Int64
    ) throws -> Bool {
        try tx.execute("""
            INSERT INTO occasion_challenges (occasion_id, kind, author_id, title, description, points, created_at)
            VALUES (\(occasionID), 'dare', \(authorID), \(title), \(description), \(points), \(now))
            ON CONFLICT (occasion_id, author_id) WHERE kind = 'dare' DO UPDATE
            SET title = excluded.title, description = excluded.description, points = excluded.points
            WHERE occasion_challenges.discovered_at IS NULL AND occasion_challenges.completed_at IS NULL
            """) == 1
    }

    static func setDarePoints(_ tx: Transaction, occasionID: Int64, id: Int64, points: Int) throws -> Bool {
        try tx.execute("""
            UPDATE occasion_challenges SET points = \(points)
            WHERE occasion_id = \(occasionID) AND id = \(id) AND kind = 'dare' AND completed_at IS NULL
            """) == 1
    }

    /// The celebrant opened the classified file: every dare written so far is found.
    static func discoverDares(_ tx: Transaction, occasionID: Int64, now: Int64) throws -> Int {
        try tx.execute("""
            UPDATE occasion_challenges SET discovered_at = \(now)
            WHERE occasion_id = \(occasionID) AND kind = 'dare' AND discovered_at IS NULL
            """)
    }

    struct Proof {
        var option: String?
        var kind: String
        var text: String?
    }

    /// Completes a challenge or dare once: the first request adds the points
    /// and the timeline entry; any later one (a double submit, a second tab)
    /// changes nothing and returns false.
    static func complete(
        _ tx: Transaction, occasionID: Int64, challengeID: Int64, proof: Proof, byHost: Bool, now: Int64
    ) throws -> Bool {
        guard let row = try tx.queryOne("""
            UPDATE occasion_challenges
            SET completed_at = \(now), chosen_option = \(proof.option), proof_kind = \(proof.kind), proof_text = \(proof.text),
                discovered_at = coalesce(discovered_at, \(now))
            WHERE occasion_id = \(occasionID) AND id = \(challengeID) AND completed_at IS NULL
            RETURNING kind, points
            """)
        else { return false }
        let points: Int = try row.get("points")
        let kind: String = try row.get("kind")
        try tx.execute("UPDATE occasions SET balance = balance + \(points) WHERE id = \(occasionID)")
        try appendTimeline(tx, occasionID: occasionID, kind: kind, subjectID: challengeID, points: points, byHost: byHost, now: now)
        return true
    }

    // MARK: Gifts

    static func gifts(_ db: some Queryable, occasionID: Int64) throws -> [Gift] {
        try db.query("""
            SELECT \(Gift.columns) FROM occasion_gifts g WHERE g.occasion_id = \(occasionID)
            ORDER BY g.state IN ('draft', 'submitted'), g.position, g.id
            """).map(Gift.init(row:))
    }

    static func gift(_ db: some Queryable, occasionID: Int64, id: Int64) throws -> Gift? {
        try db.queryOne("SELECT \(Gift.columns) FROM occasion_gifts g WHERE g.occasion_id = \(occasionID) AND g.id = \(id)")
            .map(Gift.init(row:))
    }

    static func gift(_ db: some Queryable, occasionID: Int64, authorID: Int64) throws -> Gift? {
        try db.queryOne("""
            SELECT \(Gift.columns) FROM occasion_gifts g WHERE g.occasion_id = \(occasionID) AND g.author_id = \(authorID)
            """).map(Gift.init(row:))
    }

    /// Writes the author's draft; false once it has left draft.
    static func saveDraft(_ tx: Transaction, occasionID: Int64, authorID: Int64, body: String, now: Int64) throws -> Bool {
        try tx.execute("""
            INSERT INTO occasion_gifts (occasion_id, author_id, kind, body, created_at)
            VALUES (\(occasionID), \(authorID), 'letter', \(body), \(now))
            ON CONFLICT (occasion_id, author_id) DO UPDATE SET body = excluded.body WHERE occasion_gifts.state = 'draft'
            """) == 1
    }

    static func submit(_ tx: Transaction, occasionID: Int64, authorID: Int64, now: Int64) throws -> Bool {
        try tx.execute("""
            UPDATE occasion_gifts SET state = 'submitted', submitted_at = \(now)
            WHERE occasion_id = \(occasionID) AND author_id = \(authorID) AND state = 'draft'
              AND (length(trim(body)) > 0 OR EXISTS (SELECT 1 FROM occasion_media WHERE gift_id = occasion_gifts.id))
            """) == 1
    }

    /// Back to draft, while the host has not priced it yet.
    static func withdraw(_ tx: Transaction, occasionID: Int64, authorID: Int64) throws -> Bool {
        try tx.execute("""
            UPDATE occasion_gifts SET state = 'draft', submitted_at = NULL
            WHERE occasion_id = \(occasionID) AND author_id = \(authorID) AND state = 'submitted'
            """) == 1
    }

    /// Prices a submitted or on-offer gift and sets its place; it goes on offer.
    /// Only the price and order change: the content is the author's.
    static func price(_ tx: Transaction, occasionID: Int64, giftID: Int64, cost: Int, position: Int) throws -> Bool {
        try tx.execute("""
            UPDATE occasion_gifts SET cost = \(cost), position = \(position), state = 'on_offer'
            WHERE occasion_id = \(occasionID) AND id = \(giftID) AND state IN ('submitted', 'on_offer')
            """) == 1
    }

    /// Deletes a sent gift that is not yet unlocked: an unlocked one was paid
    /// for with the celebrant's points and is part of what they have.
    static func deleteGift(_ tx: Transaction, occasionID: Int64, giftID: Int64) throws -> Bool {
        try tx.execute("""
            DELETE FROM occasion_gifts WHERE occasion_id = \(occasionID) AND id = \(giftID) AND state IN ('submitted', 'on_offer')
            """) == 1
    }

    enum UnlockOutcome: Equatable {
        case unlocked
        case alreadyUnlocked
        case notOnOffer
        case insufficient(balance: Int, cost: Int)
    }

    /// Unlocks a gift on offer in one transaction: the balance must cover
    /// the cost (a forced unlock by the host is free), the gift flips to
    /// unlocked exactly once, the timeline records it. Concurrent requests
    /// serialise on the write lock; only the first finds it on offer.
    static func unlock(_ tx: Transaction, occasionID: Int64, giftID: Int64, byHost: Bool, now: Int64) throws -> UnlockOutcome {
        guard let gift = try gift(tx, occasionID: occasionID, id: giftID) else { return .notOnOffer }
        switch gift.state {
        case .unlocked: return .alreadyUnlocked
        case .draft, .submitted: return .notOnOffer
        case .onOffer: break
        }
        let cost = byHost ? 0 : (gift.cost ?? 0)
        if cost > 0 {
            let paid = try tx.execute("""
                UPDATE occasions SET balance = balance - \(cost) WHERE id = \(occasionID) AND balance >= \(cost)
                """)
            if paid == 0 {
                let balance = try tx.queryValue("SELECT balance FROM occasions WHERE id = \(occasionID)", as: Int.self) ?? 0
                return .insufficient(balance: balance, cost: cost)
            }
        }
        try tx.execute("""
            UPDATE occasion_gifts SET state = 'unlocked', unlocked_at = \(now)
            WHERE occasion_id = \(occasionID) AND id = \(giftID) AND state = 'on_offer'
            """)
        try appendTimeline(tx, occasionID: occasionID, kind: "gift", subjectID: giftID, points: -cost, byHost: byHost, now: now)
        return .unlocked
    }

    // MARK: The finale

    /// Opens the badge when every gift on offer is unlocked (and there is at
    /// least one), or when `force` (the host called it). True only the
    /// first time: the finale happens once.
    static func openFinaleIfDue(_ tx: Transaction, occasionID: Int64, force: Bool, now: Int64) throws -> Bool {
        let rule: SQL =
            force
            ? "1 = 1"
            : """
            EXISTS (SELECT 1 FROM occasion_gifts WHERE occasion_id = \(occasionID) AND state = 'unlocked')
            AND NOT EXISTS (SELECT 1 FROM occasion_gifts WHERE occasion_id = \(occasionID) AND state = 'on_offer')
            """
        guard try tx.execute("UPDATE occasions SET finale_at = \(now) WHERE id = \(occasionID) AND finale_at IS NULL AND \(rule)") == 1
        else { return false }
        try appendTimeline(tx, occasionID: occasionID, kind: "finale", subjectID: nil, points: 0, byHost: force, now: now)
        return true
    }

    // MARK: Points

    enum AdjustOutcome: Equatable { case adjusted, wouldGoNegative(balance: Int) }

    static func adjust(
        _ tx: Transaction, occasionID: Int64, delta: Int, reason: String, actorID: Int64, now: Int64
    ) throws -> AdjustOutcome {
        let changed = try tx.execute("""
            UPDATE occasions SET balance = balance + \(delta) WHERE id = \(occasionID) AND balance + \(delta) >= 0
            """)
        if changed == 0 {
            return .wouldGoNegative(balance: try tx.queryValue("SELECT balance FROM occasions WHERE id = \(occasionID)", as: Int.self) ?? 0)
        }
        let adjustmentID = try tx.insertReturningID("""
            INSERT INTO occasion_adjustments (occasion_id, delta, reason, actor_id, at)
            VALUES (\(occasionID), \(delta), \(reason), \(actorID), \(now))
            """)
        try appendTimeline(
            tx, occasionID: occasionID, kind: "adjustment", subjectID: adjustmentID, points: delta, byHost: true, now: now)
        return .adjusted
    }

    struct Adjustment: Sendable {
        var delta: Int
        var reason: String
        var actorName: String?
        var at: Int64
    }

    static func adjustments(_ db: some Queryable, occasionID: Int64) throws -> [Adjustment] {
        try db.query("""
            SELECT a.delta, a.reason, a.at, m.display_name AS actor_name
            FROM occasion_adjustments a
            LEFT JOIN occasion_members m ON m.occasion_id = a.occasion_id AND m.user_id = a.actor_id
            WHERE a.occasion_id = \(occasionID) ORDER BY a.id DESC
            """).map { row in
            Adjustment(delta: try row.get("delta"), reason: try row.get("reason"), actorName: try row.get("actor_name"), at: try row.get("at"))
        }
    }

    /// The balance recomputed from history: completions, adjustments and
    /// paid unlocks. Equal to the kept balance by construction; tests hold
    /// the two against each other.
    static func derivedBalance(_ db: some Queryable, occasionID: Int64) throws -> Int {
        try db.queryValue("SELECT CAST(coalesce(sum(points), 0) AS BIGINT) FROM occasion_timeline WHERE occasion_id = \(occasionID)", as: Int.self) ?? 0
    }

    struct Economy: Sendable, Equatable {
        var challengePoints: Int
        var darePoints: Int
        var giftCosts: Int
        var unpricedGifts: Int
    }

    static func economy(_ db: some Queryable, occasionID: Int64) throws -> Economy {
        let row = try db.queryOne("""
            SELECT
              (SELECT CAST(coalesce(sum(points), 0) AS BIGINT) FROM occasion_challenges WHERE occasion_id = \(occasionID) AND kind = 'challenge') AS challenges,
              (SELECT CAST(coalesce(sum(points), 0) AS BIGINT) FROM occasion_challenges WHERE occasion_id = \(occasionID) AND kind = 'dare') AS dares,
              (SELECT CAST(coalesce(sum(cost), 0) AS BIGINT) FROM occasion_gifts WHERE occasion_id = \(occasionID) AND state IN ('on_offer', 'unlocked')) AS costs,
              (SELECT count(*) FROM occasion_gifts WHERE occasion_id = \(occasionID) AND state = 'submitted') AS unpriced
            """)
        return Economy(
            challengePoints: try row?.get("challenges") ?? 0, darePoints: try row?.get("dares") ?? 0,
            giftCosts: try row?.get("costs") ?? 0, unpricedGifts: try row?.get("unpriced") ?? 0)
    }

    // MARK: Timeline

    static func appendTimeline(
        _ tx: Transaction, occasionID: Int64, kind: String, subjectID: Int64?, points: Int, byHost: Bool, now: Int64
    ) throws {
        try tx.execute("""
            INSERT INTO occasion_timeline (occasion_id, kind, subject_id, points, by_host, at)
            VALUES (\(occasionID), \(kind), \(subjectID), \(points), \(byHost), \(now))
            """)
    }

    struct TimelineRow: Sendable {
        var id: Int64
        var kind: String
        var subjectID: Int64?
        var points: Int
        var byHost: Bool
        var at: Int64
        /// What the entry is about, when it still exists.
        var challengeTitle: String?
        var chosenOption: String?
        var optionB: String?
        var giftAuthor: String?
        var giftKind: String?
        var adjustmentReason: String?
        /// Its subject went with its author's account; for a gift, the gift's kind ("letter").
        var departed: Bool = false
        var departedGiftKind: String?
    }

    static func timeline(_ db: some Queryable, occasionID: Int64) throws -> [TimelineRow] {
        try db.query("""
            SELECT t.id, t.kind, t.subject_id, t.points, t.by_host, t.at,
                   c.title AS challenge_title, c.chosen_option, c.option_b,
                   gm.display_name AS gift_author, g.kind AS gift_kind, a.reason AS adjustment_reason,
                   CASE WHEN d.subject_id IS NOT NULL THEN 1 ELSE 0 END AS departed, d.gift_kind AS departed_gift_kind
            FROM occasion_timeline t
            LEFT JOIN occasion_challenges c ON t.kind IN ('challenge', 'dare') AND c.id = t.subject_id AND c.occasion_id = t.occasion_id
            LEFT JOIN occasion_gifts g ON t.kind = 'gift' AND g.id = t.subject_id AND g.occasion_id = t.occasion_id
            LEFT JOIN occasion_members gm ON gm.occasion_id = g.occasion_id AND gm.user_id = g.author_id
            LEFT JOIN occasion_adjustments a ON t.kind = 'adjustment' AND a.id = t.subject_id AND a.occasion_id = t.occasion_id
            LEFT JOIN occasion_departed_subjects d ON d.occasion_id = t.occasion_id AND d.kind = t.kind AND d.subject_id = t.subject_id
            WHERE t.occasion_id = \(occasionID)
            ORDER BY t.id
            """).map { row in
            TimelineRow(
                id: try row.get("id"), kind: try row.get("kind"), subjectID: try row.get("subject_id"), points: try row.get("points"), byHost: try row.get("by_host"),
                at: try row.get("at"), challengeTitle: try row.get("challenge_title"), chosenOption: try row.get("chosen_option"),
                optionB: try row.get("option_b"), giftAuthor: try row.get("gift_author"), giftKind: try row.get("gift_kind"),
                adjustmentReason: try row.get("adjustment_reason"), departed: try row.get("departed", as: Int64.self) != 0,
                departedGiftKind: try row.get("departed_gift_kind"))
        }
    }

    // MARK: Reports

    static func report(
        _ tx: Transaction, occasionID: Int64, subjectKind: String, subjectID: Int64, reason: String, reporterID: Int64, now: Int64
    ) throws {
        try tx.execute("""
            INSERT INTO occasion_reports (occasion_id, subject_kind, subject_id, reason, reporter_id, at)
            VALUES (\(occasionID), \(subjectKind), \(subjectID), \(reason), \(reporterID), \(now))
            """)
    }

    struct Report: Sendable {
        var id: Int64
        var subjectKind: String
        var subjectID: Int64
        var subjectTitle: String?
        var reason: String
        var reporterName: String?
        var at: Int64
    }

    static func reports(_ db: some Queryable, occasionID: Int64) throws -> [Report] {
        try db.query("""
            SELECT r.id, r.subject_kind, r.subject_id, r.reason, r.at, m.display_name AS reporter_name,
                   CASE r.subject_kind
                     WHEN 'challenge' THEN (SELECT title FROM occasion_challenges WHERE id = r.subject_id AND occasion_id = r.occasion_id)
                     ELSE (SELECT 'Gift from ' || gm.display_name FROM occasion_gifts g
                           JOIN occasion_members gm ON gm.occasion_id = g.occasion_id AND gm.user_id = g.author_id
                           WHERE g.id = r.subject_id AND g.occasion_id = r.occasion_id)
                   END AS subject_title
            FROM occasion_reports r
            LEFT JOIN occasion_members m ON m.occasion_id = r.occasion_id AND m.user_id = r.reporter_id
            WHERE r.occasion_id = \(occasionID) ORDER BY r.id DESC
            """).map { row in
            Report(
                id: try row.get("id"), subjectKind: try row.get("subject_kind"), subjectID: try row.get("subject_id"),
                subjectTitle: try row.get("subject_title"), reason: try row.get("reason"), reporterName: try row.get("reporter_name"),
                at: try row.get("at"))
        }
    }

    // MARK: Account deletion

    /// What deleting an account does to occasions: their dares and gifts go
    /// (timeline entries stay and show the content as removed); a host hands
    /// the role to the longest-standing contributor; the membership goes;
    /// an occasion left with no member goes whole. Returns the occasions
    /// that went, so their invite links can be retired.
    static func purge(_ tx: Transaction, userID: Int64) throws -> [Int64] {
        let hosted: [Int64] = try tx.query("""
            SELECT occasion_id FROM occasion_members WHERE user_id = \(userID) AND role = 'host'
            """).map { try $0.get("occasion_id") }
        // Timeline entries about what goes say it was a former member's (`FormerMember`).
        try tx.execute("""
            INSERT INTO occasion_departed_subjects (occasion_id, kind, subject_id, gift_kind)
            SELECT occasion_id, kind, id, NULL FROM occasion_challenges WHERE author_id = \(userID)
            UNION ALL
            SELECT occasion_id, 'gift', id, kind FROM occasion_gifts WHERE author_id = \(userID)
            ON CONFLICT DO NOTHING
            """)
        try tx.execute("DELETE FROM occasion_challenges WHERE author_id = \(userID)")
        try tx.execute("DELETE FROM occasion_gifts WHERE author_id = \(userID)")
        try tx.execute("DELETE FROM occasion_members WHERE user_id = \(userID)")
        for occasionID in hosted {
            try tx.execute("""
                UPDATE occasion_members SET role = 'host'
                WHERE occasion_id = \(occasionID) AND user_id = (
                    SELECT user_id FROM occasion_members WHERE occasion_id = \(occasionID) AND role = 'contributor'
                    ORDER BY joined_at, user_id LIMIT 1)
                """)
        }
        return try tx.query("DELETE FROM occasions WHERE id NOT IN (SELECT occasion_id FROM occasion_members) RETURNING id")
            .map { try $0.get("id") }
    }
}
