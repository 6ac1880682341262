import KithTemplates

/// What tallies publish after a commit, kept apart from the routes because
/// the reset scheduler, the account purge and friends publish too.
enum TallyLive {
    /// Tells every page showing the tally that it changed: full-screen views
    /// on its own topic, and each person's list on theirs (so a list page
    /// follows one topic however many tallies it shows).
    static func publishChange(_ app: KithApp, tallyID: Int64, audience: [Int64]) {
        app.live.publish(topic: Tally.topic(tallyID), fragments: TallyRoutes.faceFragments(tallyID))
        for user in Set(audience).sorted() { app.live.publish(topic: Tally.listTopic(user), fragments: [FragmentID.tallyRow(tallyID)]) }
    }

    /// A tally joined or left these people's lists: the whole list refreshes.
    static func publishListChanged(_ app: KithApp, users: Set<Int64>) {
        for user in users.sorted() { app.live.publish(topic: Tally.listTopic(user), fragments: [FragmentID.tallyList]) }
    }
}
