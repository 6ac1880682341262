import Foundation
import KithApp
import KithHTTP
import KithStorage
import Testing

@Suite("Database selection")
struct DatabaseSelectionTests {
    @Test("--database and KITH_DATABASE choose PostgreSQL; the flag wins; anything but a postgres URL is refused")
    func parsing() throws {
        #expect(try CommandLineParser.parse([], environment: [:]).1.databaseURL == nil)
        let fromEnvironment = try CommandLineParser.parse([], environment: ["KITH_DATABASE": "postgres://a@h/db", "KITH_DATABASE_POOL": "3"]).1
        #expect(fromEnvironment.databaseURL == "postgres://a@h/db")
        #expect(fromEnvironment.databasePool == 3)
        let (command, flag) = try CommandLineParser.parse(
            ["migrate", "--database", "postgresql://b@h/db"], environment: ["KITH_DATABASE": "postgres://a@h/db"])
        #expect(command == .migrate)
        #expect(flag.databaseURL == "postgresql://b@h/db")
        for bad in ["kith.sqlite", "mysql://h/db", ""] {
            #expect(throws: UsageError.self) { try CommandLineParser.parse(["--database", bad], environment: [:]) }
        }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--database-pool", "0"], environment: [:]) }
    }

    @Test("/healthz answers 503 once the database stops answering")
    func healthzAsksTheDatabase() throws {
        let harness = try AppHarness()
        #expect(try harness.get("/healthz").status == 200)
        harness.app.database.close()
        let response = try harness.get("/healthz")
        #expect(response.status == 503)
        #expect(String(decoding: response.body, as: UTF8.self) == "database unreachable\n")
    }
}
