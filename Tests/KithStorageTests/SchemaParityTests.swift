import Foundation
import KithTestSupport
import Testing

/// Whether PostgreSQL can be reached (KITH_TEST_DATABASE) or started here.
enum PostgresAtHand {
    static let canRun: Bool = {
        guard Tools.has("python3") else { return false }
        if ProcessInfo.processInfo.environment["KITH_TEST_DATABASE"] != nil { return Tools.has("psql") || hasPostgresBinaries(["psql"]) }
        return hasPostgresBinaries(["initdb", "pg_ctl", "psql"])
    }()

    /// Debian keeps initdb and pg_ctl off PATH, under its versioned directory.
    static func hasPostgresBinaries(_ names: [String]) -> Bool {
        names.allSatisfy { name in
            Tools.has(name) || ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).contains {
                FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/\(name)")
            }
        }
    }
}

/// Migrations/postgres/ must build what Migrations/ builds, or the one text
/// of store SQL would meet a different schema on each store. The comparing is
/// Scripts/schema_parity.py (`make schema-parity`); these tests run it when a
/// PostgreSQL server is named (KITH_TEST_DATABASE) or one can be started
/// here, and are skipped otherwise.
@Suite("PostgreSQL migrations match the SQLite ones", .enabled(if: PostgresAtHand.canRun, "needs PostgreSQL (initdb and psql, or KITH_TEST_DATABASE) and python3"))
struct SchemaParityTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = root.appendingPathComponent("Scripts/schema_parity.py").path

    func parity(_ arguments: [String] = []) throws -> ProgramResult {
        try runProgram(Tools.path("python3") ?? "/usr/bin/python3", [Self.script] + arguments, mergingErrors: true)
    }

    @Test("every table, column, key, index, CHECK, trigger and seed row agrees")
    func migrationsAgree() throws {
        let result = try parity()
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains(", 0 differences"), "\(result.output)")
    }

    /// The check above passes only if the comparing sees; here a copy of the
    /// migrations is changed the ways a hand-written twin drifts, and each
    /// change must be reported.
    @Test("a PostgreSQL migration that drifts is reported, difference by difference")
    func driftIsReported() throws {
        let copy = try TemporaryDirectory("kith-parity")
        #expect(shell("cp -R '\(Self.root.path)/Migrations' '\(copy.path)/'") == 0)
        let postgres = copy.path + "/Migrations/postgres/"
        func edit(_ file: String, _ old: String, _ new: String) throws {
            let path = postgres + file
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains(old), "\(file) no longer holds \(old)")
            try text.replacingOccurrences(of: old, with: new).write(toFile: path, atomically: true, encoding: .utf8)
        }
        try edit("0006_occasions.sql", "actor_id      BIGINT REFERENCES users(id) ON DELETE SET NULL",
                 "actor_id      BIGINT REFERENCES users(id) ON DELETE CASCADE")
        try edit("0015_tally_step.sql", " CHECK (step IN (1, 2, 5, 10))", "")
        try edit("0007_plates.sql", "    ('WI', '55', 'Wisconsin'),\n    ('WY', '56', 'Wyoming');", "    ('WI', '55', 'Wisconsin');")
        try edit("0017_orders_and_pins.sql", "CREATE INDEX tally_pins_by_tally ON tally_pins(tally_id);", "")
        try edit("0001_settings.sql", #"'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'"#, "'YYYY-MM-DD HH24:MI:SS'")
        try edit("0006_occasions.sql", "BEFORE UPDATE OF id, occasion_id, subject_kind, subject_id, reason, at ON occasion_reports",
                 "BEFORE UPDATE ON occasion_reports")

        let result = try parity(["--migrations", copy.path + "/Migrations"])
        #expect(result.status == 1, "\(result.output)")
        for expected in [
            "occasion_adjustments: foreign_keys:",
            "tallies: checks: SQLite 8, PostgreSQL 7",
            "plate_regions: seed rows: SQLite 96, PostgreSQL 95",
            // Wyoming's row in each of the six rulesets went with it.
            "plate_ruleset_regions: seed rows: SQLite 419, PostgreSQL 413",
            "tally_pins: indexes:",
            "settings: column updated_at default's text:",
            "occasion_reports: triggers:",
            ", 7 differences",
        ] {
            #expect(result.output.contains(expected), "expected \(expected) in:\n\(result.output)")
        }
    }
}
