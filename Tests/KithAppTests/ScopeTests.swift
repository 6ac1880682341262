import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

/// A resource with an owner, loaded the way every feature loads its scope.
struct TestNote: Scope {
    let id: Int64
    let text: String

    static func load(_ id: Int64, for user: User, in db: some Queryable) throws -> TestNote? {
        try db.queryOne("SELECT id, text FROM test_notes WHERE id = \(id) AND owner_id = \(user.id)").map {
            TestNote(id: try $0.get("id"), text: try $0.get("text"))
        }
    }
}

@Suite("Scoped resources: one loader decides, outsiders get 404")
struct ScopeTests {
    static let show = Route(.get, "/test/notes/:note")

    @Test("the owner sees it; another user, a missing id and a malformed id all get 404; a visitor is asked to sign in")
    func accessMatrix() throws {
        let app = try AppHarness(configure: { $0.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1) }) { app in
            _ = try? app.database.write { tx in
                try tx.executeScript(TestCatalog.ddl(tx, "CREATE TABLE test_notes (id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL, text TEXT NOT NULL)"))
            }
            app.on(Self.show) { context in
                let note = try context.load(TestNote.self, parameter: "note")
                return .text(note.text)
            }
        }
        let owner = try signUp(app, username: "note_owner")
        let stranger = try signUp(app, username: "note_stranger")
        let ownerID = try #require(app.app.database.read { try AccountStore.credentials($0, username: "note_owner") }?.user.id)
        let noteID = try app.app.database.write { tx in
            try tx.execute("INSERT INTO test_notes (owner_id, text) VALUES (\(ownerID), 'secret plans')")
            return tx.lastInsertRowID
        }
        #expect(try owner.get("/test/notes/\(noteID)").text == "secret plans")
        let refused = try stranger.get("/test/notes/\(noteID)")
        #expect(refused.status == 404)
        #expect(!refused.text.contains("secret plans"))
        #expect(try owner.get("/test/notes/\(noteID + 1)").status == 404)
        #expect(try owner.get("/test/notes/abc").status == 404)
        let visitor = try WebSession(port: app.port).get("/test/notes/\(noteID)")
        #expect(visitor.status == 303)
        #expect(visitor.header("Location") == "/signin?next=%2Ftest%2Fnotes%2F\(noteID)")
    }

    @Test("the guest fields ask for a name, an avatar and a time zone the script may preselect")
    func guestFields() throws {
        let html = GuestFields.render(
            form: FormState(values: ["time_zone": "UTC"]),
            avatars: [SettingsPage.AvatarChoice(id: "fox", label: "Fox", imageURL: "/static/avatars/fox.svg")],
            timeZones: ["Europe/London", "UTC"]
        ).string
        #expect(html.contains("name=\"display_name\""))
        #expect(html.contains("name=\"avatar\" type=\"radio\" value=\"fox\""))
        #expect(html.contains("data-time-zone=\"browser\""))
        #expect(html.contains("<option value=\"UTC\" selected>UTC</option>"))
    }
}
