import KithStorage

/// Ending someone's access, the one way every feature does it. A change of
/// membership is a row; the pages already open are streams, and they would
/// go on hearing about a topic the person may no longer see. So whoever ends
/// access also revokes: after the commit, each of the person's streams on the
/// topic is told `revoked` and closed, the page reloads into its 404, and the
/// topic's rule refuses the reconnect.
extension KithApp {
    /// After `tx` commits, ends the live streams of `userIDs` on `topic`.
    /// Nothing happens if the transaction rolls back: access did not end.
    public func revoke(_ userIDs: some Sequence<Int64>, topic: String, after tx: Transaction) {
        let live = self.live
        let keys = Set(userIDs).sorted().map(RequestContext.viewerKey(for:))
        guard !keys.isEmpty else { return }
        tx.afterCommit { for key in keys { live.closeStreams(viewerKey: key, topic: topic) } }
    }

    /// After `tx` commits, ends every live stream of `userID`, whatever it
    /// follows: the account is gone, and each open page reloads.
    public func revokeEverything(of userID: Int64, after tx: Transaction) {
        let live = self.live
        let key = RequestContext.viewerKey(for: userID)
        tx.afterCommit { live.closeStreams(viewerKey: key, topic: nil) }
    }
}
