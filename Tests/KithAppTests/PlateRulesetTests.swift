import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

/// Rulesets past the US (Canada's provinces and territories) and rarity
/// scoring: what a game counts is chosen at creation and changed by the
/// host, and every route reads it from the game's ruleset rows.
@Suite("Plate games: rulesets and rarity")
struct PlateRulesetTests {
    static func create(
        _ session: WebSession, name: String = "Cross-border", mode: String = "competitive", countries: String = "us-ca",
        scoring: String? = nil, dc: Bool = false
    ) throws -> TestResponse {
        var fields = [("name", name), ("mode", mode), ("countries", countries)]
        if let scoring { fields.append(("scoring", scoring)) }
        if dc { fields.append(("dc", "on")) }
        return try session.post("/games", fields, csrf: try session.token(from: "/games/new"))
    }

    static func gameID(_ response: TestResponse) throws -> Int64 {
        let location = try #require(response.header("Location"))
        return try #require(Int64(location.dropFirst("/games/".count)), "\(response.status) \(location)")
    }

    @Test("a US and Canada game counts 63 regions, draws North America, and spots, lists and shows a province")
    func canada() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let created = try Self.create(dad.session)
        #expect(created.status == 303)
        let game = try Self.gameID(created)
        #expect(try app.app.database.read { try $0.queryValue("SELECT ruleset FROM plate_games WHERE id = \(game)", as: String.self) } == "us50ca")

        let board = try dad.session.get("/games/\(game)").text
        #expect(board.contains("0 of 63"), "50 states and 13 provinces and territories")
        #expect(board.contains("data-state=\"CA-ON\""), "Ontario is on the map")
        #expect(board.contains("href=\"/games/\(game)/states/CA-QC\""))
        #expect(board.contains("data-state=\"TX\""), "US codes are unchanged")
        #expect(!board.contains("data-state=\"DC\""), "DC is drawn but not a control without the DC rule")

        #expect(try Plates.spot(dad.session, game, "CA-ON").status == 303)
        #expect(try Plates.spot(dad.session, game, "ca-qc").status == 303, "codes are read in either case")
        #expect(try Plates.spot(dad.session, game, "CA").status == 303, "CA is still California")
        let regions = try app.app.database.read { db in
            try db.query("SELECT region FROM plate_spots WHERE game_id = \(game) ORDER BY region").map { try $0.get("region", as: String.self) }
        }
        #expect(regions == ["CA", "CA-ON", "CA-QC"])
        let after = try dad.session.get("/games/\(game)").text
        #expect(after.contains("3 of 63"))
        #expect(after.contains("Ontario, spotted by you"))

        let state = try dad.session.get("/games/\(game)/states/CA-ON")
        #expect(state.status == 200)
        #expect(state.text.contains("Ontario"))
        let list = try dad.session.get("/games/\(game)/spot").text
        #expect(list.contains("Québec") && list.contains("Yukon") && list.contains("Nunavut"))
    }

    @Test("a US-only game refuses a province with a 4xx and a message, and has no page for one")
    func usOnlyRefusesProvinces() throws {
        let app = try Plates.harness()
        let (dad, game, _) = try Plates.family(app)
        let response = try Plates.spot(dad.session, game, "CA-ON")
        #expect(response.status == 422)
        #expect(response.text.contains("Choose one of the states this game counts."))
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE game_id = \(game)") == 0)
        #expect(try dad.session.get("/games/\(game)/states/CA-ON").status == 404)
        #expect(try Plates.spot(dad.session, game, "ZZ-XX").status == 422, "a region that exists nowhere")
        let board = try dad.session.get("/games/\(game)").text
        #expect(!board.contains("CA-ON"), "the US map, without Canada")
    }

    @Test("whose plates count and the scoring are choices: anything else is a 422 with a message and no game")
    func badChoices() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let mexico = try Self.create(dad.session, countries: "mx")
        #expect(mexico.status == 422)
        #expect(mexico.text.contains("Choose whose plates count"))
        let scoring = try Self.create(dad.session, scoring: "vibes")
        #expect(scoring.status == 422)
        #expect(scoring.text.contains("Choose how spots score"))
        #expect(try countRows(app, "SELECT count(*) FROM plate_games") == 0)
        let form = try dad.session.get("/games/new").text
        #expect(form.contains("name=\"countries\"") && form.contains("value=\"us-ca\"") && form.contains("value=\"us-ca-mx\""))
        #expect(form.contains("name=\"scoring\"") && form.contains("value=\"rarity\""))
    }

    @Test("the host moves a game to US and Canada, with DC, keeping every spot; a player cannot")
    func hostChangesRules() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "TX")
        let refused = try mom.session.post(
            "/games/\(game)/settings", [("name", "Summer Road Trip"), ("mode", "collaborative"), ("countries", "us-ca")],
            csrf: try mom.session.token(from: "/games/\(game)"))
        #expect(refused.status == 403)
        #expect(try app.app.database.read { try $0.queryValue("SELECT ruleset FROM plate_games WHERE id = \(game)", as: String.self) } == "us50")

        let players = try dad.session.get("/games/\(game)/players").text
        #expect(players.contains("name=\"countries\""), "the settings form offers the choice")
        let saved = try dad.session.post(
            "/games/\(game)/settings", [("name", "Summer Road Trip"), ("mode", "collaborative"), ("countries", "us-ca"), ("dc", "on")],
            csrf: try dad.session.token(from: "/games/\(game)/players"))
        #expect(saved.status == 303)
        #expect(try app.app.database.read { try $0.queryValue("SELECT ruleset FROM plate_games WHERE id = \(game)", as: String.self) } == "us50dcca")
        #expect(try Plates.spot(mom.session, game, "CA-BC").status == 303)
        let board = try dad.session.get("/games/\(game)").text
        #expect(board.contains("2 of 64"), "Texas kept, British Columbia added, of 50 + DC + 13")
        let settings = try dad.session.get("/games/\(game)/players").text
        #expect(settings.contains("value=\"us-ca\" checked"), "the form shows the game's choice")
    }

    @Test("rarity scoring: each region is worth its ruleset points, the leaderboard ranks and shows them")
    func rarity() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Self.gameID(try Self.create(dad.session, scoring: "rarity"))
        let mom = try Plates.player(app, "mom", name: "Mom", joining: game)
        for code in ["HI", "CA-NU"] { try Plates.spot(dad.session, game, code) }  // 5 + 5
        for code in ["TX", "OH", "CA-ON"] { try Plates.spot(mom.session, game, code) }  // 1 + 1 + 1

        let players = try app.app.database.read { try PlateStore.players($0, gameID: game) }
        #expect(players.map(\.name) == ["Dad", "Mom"], "points rank, not the count: Dad has fewer regions")
        #expect(players.map(\.score) == [2, 3])
        #expect(players.map(\.points) == [10, 3])

        let board = try mom.session.get("/games/\(game)").text
        #expect(board.contains("2 of 63 <span class=\"plate-points\">· 10 points</span>"))
        #expect(board.contains("3 of 63 <span class=\"plate-points\">· 3 points</span>"))
        #expect(board.firstRange(of: "· 10 points")!.lowerBound < board.firstRange(of: "· 3 points")!.lowerBound, "Dad leads")

        // The same spots scored by count: Mom leads, and no points are shown.
        try app.app.database.write { try $0.execute("UPDATE plate_games SET scoring = 'count' WHERE id = \(game)") }
        let counted = try app.app.database.read { try PlateStore.players($0, gameID: game) }
        #expect(counted.map(\.name) == ["Mom", "Dad"])
        #expect(!(try mom.session.get("/games/\(game)").text.contains("plate-points")))
    }

    @Test("rarity in a collaborative game: the group's points count each region once; DC is worth 3")
    func rarityTogether() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Self.gameID(try Self.create(dad.session, mode: "collaborative", countries: "us", scoring: "rarity", dc: true))
        let mom = try Plates.player(app, "mom", name: "Mom", joining: game)
        try Plates.spot(dad.session, game, "DC")
        try Plates.spot(mom.session, game, "DC")
        try Plates.spot(mom.session, game, "AK")
        let board = try dad.session.get("/games/\(game)").text
        #expect(board.contains("2 of 51</strong> <span class=\"plate-points\">· 7 points</span>"), "DC 3 once, Alaska 4")
        #expect(try app.app.database.read { try PlateStore.groupPoints($0, gameID: game) } == 7)
    }

    @Test("every ruleset's regions have points, and the rare ones are worth more")
    func rulesetRows() throws {
        let app = try Plates.harness()
        let counts = try app.app.database.read { db in
            try db.query("SELECT ruleset, count(*) AS n, sum(points) AS total FROM plate_ruleset_regions GROUP BY ruleset ORDER BY ruleset")
                .map { "\(try $0.get("ruleset", as: String.self)) \(try $0.get("n", as: Int64.self))" }
        }
        #expect(counts == ["us50 50", "us50ca 63", "us50camx 95", "us50dc 51", "us50dcca 64", "us50dccamx 96"])
        let points = try app.app.database.read { db in
            try db.query("SELECT region, points FROM plate_ruleset_regions WHERE ruleset = 'us50dcca' AND points > 1 ORDER BY region").map {
                "\(try $0.get("region", as: String.self))=\(try $0.get("points", as: Int64.self))"
            }
        }
        #expect(points.contains("HI=5") && points.contains("AK=4") && points.contains("DC=3") && points.contains("CA-NU=5"))
        #expect(!points.contains { $0.hasPrefix("TX=") })
        let mexico = try app.app.database.read { db in
            try db.query("SELECT region, points FROM plate_ruleset_regions WHERE ruleset = 'us50dccamx' ORDER BY region").map {
                "\(try $0.get("region", as: String.self))=\(try $0.get("points", as: Int64.self))"
            }
        }
        #expect(mexico.contains("HI=5") && mexico.contains("CA-NU=5") && mexico.contains("DC=3"), "the US and Canada keep their points")
        #expect(mexico.contains("MX-BCN=1") && mexico.contains("MX-BCS=4") && mexico.contains("MX-JAL=2"), "border states common, the far south rare")
    }

    @Test("a US, Canada and Mexico game counts 95 regions, spots and shows a Mexican state; other games refuse one")
    func mexico() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Self.gameID(try Self.create(dad.session, countries: "us-ca-mx"))
        #expect(try app.app.database.read { try $0.queryValue("SELECT ruleset FROM plate_games WHERE id = \(game)", as: String.self) } == "us50camx")
        let board = try dad.session.get("/games/\(game)").text
        #expect(board.contains("0 of 95"), "50 states, 13 provinces and territories, 32 Mexican states")
        #expect(board.contains("href=\"/games/\(game)/states/MX-BCN\""), "Baja California is a control")
        #expect(try Plates.spot(dad.session, game, "MX-BCN").status == 303)
        #expect(try Plates.spot(dad.session, game, "mx-cmx").status == 303, "codes are read in either case")
        #expect(try Plates.spot(dad.session, game, "CA-ON").status == 303)
        #expect(try dad.session.get("/games/\(game)").text.contains("Ciudad de México, spotted by you"))
        let state = try dad.session.get("/games/\(game)/states/MX-YUC")
        #expect(state.status == 200 && state.text.contains("Yucatán"))
        #expect(try dad.session.get("/games/\(game)/spot").text.contains("Estado de México"))

        let canada = try Self.gameID(try Self.create(dad.session, name: "North only"))
        let refused = try Plates.spot(dad.session, canada, "MX-BCN")
        #expect(refused.status == 422 && refused.text.contains("Choose one of the states this game counts."))
        #expect(try dad.session.get("/games/\(canada)/states/MX-BCN").status == 404)
        #expect(!(try dad.session.get("/games/\(canada)").text.contains("href=\"/games/\(canada)/states/MX-")), "drawn, but not a control")
        #expect(try countRows(app, "SELECT count(*) FROM plate_spots WHERE game_id = \(canada)") == 0)

        let saved = try dad.session.post(
            "/games/\(canada)/settings", [("name", "North only"), ("mode", "competitive"), ("countries", "us-ca-mx"), ("dc", "on")],
            csrf: try dad.session.token(from: "/games/\(canada)/players"))
        #expect(saved.status == 303)
        #expect(try app.app.database.read { try $0.queryValue("SELECT ruleset FROM plate_games WHERE id = \(canada)", as: String.self) } == "us50dccamx")
        #expect(try Plates.spot(dad.session, canada, "MX-BCN").status == 303, "counted once the host adds Mexico")
        #expect(try dad.session.get("/games/\(canada)/players").text.contains("value=\"us-ca-mx\" checked"))
    }

    @Test(
        "North America pages pass the Nu HTML checker: both boards with rarity, a province's page, the list and the settings",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func pagesValidate() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Self.gameID(try Self.create(dad.session, scoring: "rarity", dc: true))
        let mom = try Plates.player(app, "mom", name: "Mom", joining: game)
        for code in ["RI", "CA-PE", "CA-NU"] { try Plates.spot(dad.session, game, code) }
        for code in ["RI", "HI"] { try Plates.spot(mom.session, game, code) }
        var pages: [(name: String, html: String)] = []
        func add(_ name: String, _ session: WebSession, _ path: String) throws {
            let response = try session.get(path)
            #expect(response.status == 200, "\(path)")
            pages.append((name, response.text))
        }
        try add("board-race", mom.session, "/games/\(game)")
        try add("province", mom.session, "/games/\(game)/states/CA-PE")
        try add("province-mine", dad.session, "/games/\(game)/states/CA-NU")
        try add("list", mom.session, "/games/\(game)/spot")
        try add("players-host", dad.session, "/games/\(game)/players")
        _ = try dad.session.post("/games/\(game)/mode", [("mode", "collaborative")], csrf: try dad.session.token(from: "/games/\(game)"))
        try add("board-together", mom.session, "/games/\(game)")
        let directory = try TemporaryDirectory("kith-plates-na-html")
        for page in pages {
            try Data(page.html.utf8).write(to: URL(fileURLWithPath: "\(directory.path)/\(page.name).html"))
        }
        try HTMLValidationTests.expectValid(directory: directory.path)
    }

    @Test("the migrations keep existing spots: plate_regions is rebuilt under them (twice) and every foreign key still holds")
    func migrationKeepsSpots() throws {
        let directory = try TemporaryDirectory()
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations")
        let before = directory.file("before")
        try FileManager.default.createDirectory(atPath: before, withIntermediateDirectories: true)
        let files = try FileManager.default.contentsOfDirectory(atPath: source.path).filter { $0.hasSuffix(".sql") }
        for file in files where Int(file.prefix(4)).map({ $0 < 22 }) == true {
            try FileManager.default.copyItem(atPath: source.appendingPathComponent(file).path, toPath: before + "/" + file)
        }
        let db = try Database(path: directory.file("app.sqlite"))
        defer { db.close() }
        _ = try Migrator(database: db, directory: before).migrate()
        try db.write { tx in
            try tx.execute("INSERT INTO users (id, display_name, time_zone, avatar, avatar_colour, created_at) VALUES (1, 'Dad', 'UTC', 'fox', 'green', 0)")
            try tx.execute("INSERT INTO plate_games (id, name, mode, ruleset, created_at) VALUES (1, 'Trip', 'competitive', 'us50dc', 0)")
            try tx.execute("INSERT INTO plate_players (game_id, user_id, role, colour, joined_at) VALUES (1, 1, 'host', 0, 0)")
            try tx.execute("INSERT INTO plate_spots (game_id, user_id, region, spotted_at) VALUES (1, 1, 'TX', 0), (1, 1, 'DC', 1)")
        }
        let applied = try Migrator(database: db, directory: source.path).migrate()
        #expect(applied.contains("0022_plate_rulesets_north_america.sql") && applied.contains("0023_plate_rulesets_mexico.sql"))
        let found = try db.read { db in
            (
                spots: try db.queryValue("SELECT count(*) FROM plate_spots WHERE game_id = 1", as: Int64.self),
                texas: try db.queryValue("SELECT name FROM plate_regions WHERE code = 'TX'", as: String.self),
                fips: try db.queryValue("SELECT fips FROM plate_regions WHERE code = 'TX'", as: String.self),
                ontario: try db.queryValue("SELECT country FROM plate_regions WHERE code = 'CA-ON'", as: String.self),
                baja: try db.queryValue("SELECT country FROM plate_regions WHERE code = 'MX-BCN'", as: String.self),
                scoring: try db.queryValue("SELECT scoring FROM plate_games WHERE id = 1", as: String.self),
                violations: try db.query("PRAGMA foreign_key_check").count,
                scratch: try db.queryValue("SELECT count(*) FROM sqlite_schema WHERE name = 'plate_regions_saved'", as: Int64.self)
            )
        }
        #expect(found.spots == 2)
        #expect(found.texas == "Texas")
        #expect(found.fips == "48")
        #expect(found.ontario == "CA")
        #expect(found.baja == "MX")
        #expect(found.scoring == "count")
        #expect(found.violations == 0)
        #expect(found.scratch == 0)
    }
}
