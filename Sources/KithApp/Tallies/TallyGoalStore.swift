import KithStorage

/// The goals' SQL: a tally's goal, and the history rows that count toward it.
extension TallyStore {
    static func goal(_ db: some Queryable, tallyID: Int64) throws -> TallyGoal? {
        try db.queryOne("SELECT target, period FROM tally_goals WHERE tally_id = \(tallyID)").map {
            TallyGoal(target: try $0.get("target"), period: try $0.get("period"))
        }
    }

    /// Sets the goal, or removes it when nil.
    static func setGoal(_ tx: Transaction, tallyID: Int64, goal: TallyGoal?) throws {
        guard let goal else {
            try tx.execute("DELETE FROM tally_goals WHERE tally_id = \(tallyID)")
            return
        }
        try tx.execute("""
            INSERT INTO tally_goals (tally_id, target, period) VALUES (\(tallyID), \(goal.target), \(goal.period))
            ON CONFLICT (tally_id) DO UPDATE SET target = excluded.target, period = excluded.period
            """)
    }

    /// The changes that count toward a goal, oldest first.
    static func goalChanges(_ db: some Queryable, tallyID: Int64) throws -> [TallyGoals.Change] {
        try db.query("""
            SELECT h.at, h.delta FROM tally_history h
            WHERE h.tally_id = \(tallyID) AND \(countingRows)
            ORDER BY h.id
            """).map { TallyGoals.Change(at: try $0.get("at"), delta: try $0.get("delta")) }
    }
}
