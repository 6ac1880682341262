import KithTemplates

/// What tallies publish after a commit, kept apart from the routes because
/// the reset scheduler, the account purge and a friendship ending publish too.
enum TallyLive {
    /// Tells every page showing the tally that it changed: full-screen views
    /// on its own topic, and each person's list on theirs (so a list page
    /// follows one topic however many tallies it shows).
    /// `people` false: only the count, name or settings changed, not who sees it.
    static func publishChange(_ app: KithApp, tallyID: Int64, audience: [Int64], people: Bool = true) {
        app.live.publish(change(tallyID: tallyID, audience: audience, people: people))
    }

    /// A tally joined or left these people's lists: the whole list refreshes.
    static func publishListChanged(_ app: KithApp, users: Set<Int64>) {
        app.live.publish(listChanged(users: users))
    }

    /// `publishChange` as values, for work inside a transaction that leaves
    /// publishing to whoever commits (a friendship ending).
    static func change(tallyID: Int64, audience: [Int64], people: Bool = true) -> [LiveInvalidation] {
        [LiveInvalidation(topic: Tally.topic(tallyID), fragments: people ? TallyRoutes.faceFragments(tallyID) : TallyRoutes.countFragments(tallyID))]
            + Set(audience).sorted().map { LiveInvalidation(topic: Tally.listTopic($0), fragments: [.tallyRow(tallyID)]) }
    }

    static func listChanged(users: Set<Int64>) -> [LiveInvalidation] {
        users.sorted().map { LiveInvalidation(topic: Tally.listTopic($0), fragments: [.tallyList]) }
    }
}
