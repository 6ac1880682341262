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

    /// The goals among `tallyIDs`, each with its owner's zone and the
    /// changes that count toward it: two statements for a whole list, where
    /// a read per tally would make a long list slower with every tally.
    static func goalInputs(
        _ db: some Queryable, tallyIDs: [Int64]
    ) throws -> [Int64: (goal: TallyGoal, zone: String, changes: [TallyGoals.Change])] {
        guard !tallyIDs.isEmpty else { return [:] }
        var inputs: [Int64: (goal: TallyGoal, zone: String, changes: [TallyGoals.Change])] = [:]
        for row in try db.query("""
            SELECT g.tally_id, g.target, g.period, u.time_zone FROM tally_goals g
            JOIN tallies t ON t.id = g.tally_id JOIN users u ON u.id = t.owner_id
            WHERE g.tally_id IN (\(list: tallyIDs))
            """)
        {
            inputs[try row.get("tally_id")] = (
                TallyGoal(target: try row.get("target"), period: try row.get("period")), try row.get("time_zone"), []
            )
        }
        guard !inputs.isEmpty else { return [:] }
        for row in try db.query("""
            SELECT h.tally_id, h.at, h.delta FROM tally_history h
            WHERE h.tally_id IN (\(list: inputs.keys.sorted())) AND \(countingRows)
            ORDER BY h.id
            """)
        {
            inputs[try row.get("tally_id", as: Int64.self)]?.changes.append(TallyGoals.Change(at: try row.get("at"), delta: try row.get("delta")))
        }
        return inputs
    }
}
