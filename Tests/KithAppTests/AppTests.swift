import Foundation
import Glibc
import KithApp
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

@Suite("Kith over HTTP")
struct AppTests {
    @Test("the landing page renders with every security header")
    func landing() throws {
        let app = try AppHarness()
        let response = try app.get("/")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(response.text.contains("<!doctype html>"))
        #expect(response.text.contains("lang=\"en\""))
        let csp = try #require(response.header("Content-Security-Policy"))
        #expect(csp.contains("script-src 'self'"))
        #expect(csp.contains("frame-ancestors 'none'"))
        #expect(!csp.contains("unsafe-inline"))
        #expect(response.header("X-Content-Type-Options") == "nosniff")
        #expect(response.header("Referrer-Policy") == "strict-origin-when-cross-origin")
    }

    @Test("the page links its CSS by a content-hashed URL that is cached forever")
    func hashedAssets() throws {
        let app = try AppHarness()
        let page = try app.get("/").text
        let match = try #require(page.range(of: #"/static/css/app\.[0-9a-f]{10}\.css"#, options: .regularExpression))
        let css = try app.get(String(page[match]))
        #expect(css.status == 200)
        #expect(css.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(css.text.contains("--purple"))
    }

    @Test("stylesheets, scripts and raster images carry nosniff alone; what may be opened as a page, or runs as a worker, keeps the content policy")
    func headersByKind() throws {
        let app = try AppHarness()
        let assets = app.app.assets
        for name in ["css/app.css", "js/app.js", "icons/kith-192.png"] {
            let response = try app.get(assets.url(name))
            #expect(response.status == 200, "\(name)")
            #expect(response.header("X-Content-Type-Options") == "nosniff", "\(name)")
            for documentOnly in ["Content-Security-Policy", "Referrer-Policy", "Cross-Origin-Opener-Policy", "Permissions-Policy"] {
                #expect(response.header(documentOnly) == nil, "\(name) has \(documentOnly)")
            }
        }
        for path in [assets.url("icons/kith.svg"), "/sw.js", "/manifest.webmanifest", "/no/such/page"] {
            let response = try app.get(path)
            #expect(response.header("Content-Security-Policy")?.contains("default-src 'self'") == true, "\(path)")
            #expect(response.header("X-Content-Type-Options") == "nosniff", "\(path)")
        }
    }

    @Test("every asset a page links to exists")
    func linkedAssets() throws {
        let app = try AppHarness()
        for path in ["/", "/no/such/page"] {
            let page = try app.get(path).text
            let pattern = try NSRegularExpression(pattern: #"(?:href|src)="(/static/[^"]+|/manifest\.webmanifest)""#)
            let links = pattern.matches(in: page, range: NSRange(page.startIndex..., in: page)).map {
                String(page[Range($0.range(at: 1), in: page)!])
            }
            #expect(links.count >= 4)
            for link in links {
                #expect(try app.get(link).status == 200, "\(link) linked from \(path)")
            }
        }
    }

    @Test("the web manifest names Kith and lists icons")
    func manifest() throws {
        let app = try AppHarness()
        let response = try app.get("/manifest.webmanifest")
        #expect(response.header("Content-Type") == "application/manifest+json")
        let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        #expect(json?["name"] as? String == "Kith")
        #expect((json?["icons"] as? [Any])?.count ?? 0 >= 2)
    }

    @Test("the styleguide exists only in development mode, and its live demonstration posts and publishes")
    func styleguide() throws {
        #expect(try AppHarness().get("/styleguide").status == 404)
        let app = try AppHarness(configure: { $0.development = true })
        let browser = WebSession(port: app.port)
        let page = try browser.get("/styleguide")
        #expect(page.status == 200)
        #expect(page.text.contains("theme-dark") && page.text.contains("theme-light"))
        #expect(page.text.contains("<meta name=\"kith-live\" content=\"styleguide:demo\""))
        let before = app.app.live.cursor
        let ping = try browser.post("/styleguide/ping", [], csrf: WebSession.csrfToken(in: page) ?? "")
        #expect(ping.status == 303)
        #expect(app.app.live.cursor != before, "the ping published an event")
    }

    @Test("healthz answers ok")
    func healthz() throws {
        let app = try AppHarness()
        let response = try app.get("/healthz")
        #expect(response.status == 200)
        #expect(response.text == "ok\n")
    }

    @Test("a missing page is a friendly 404 page, not a stack trace")
    func notFound() throws {
        let app = try AppHarness()
        let response = try app.get("/no/such/page")
        #expect(response.status == 404)
        #expect(response.text.contains("Nothing here"))
        #expect(response.text.contains("Back to Kith"))
    }

    @Test("the database is in WAL mode with the migrations applied")
    func database() throws {
        let app = try AppHarness()
        switch app.app.database.dialect {
        case .sqlite:
            let mode = try app.kith.app.database.read { try $0.queryValue("PRAGMA journal_mode", as: String.self) }
            #expect(mode == "wal")
        case .postgres:
            // PostgreSQL always logs ahead; what can go wrong is the server
            // opening some other database than the one it was given.
            let name = try app.app.database.read { try $0.queryValue("SELECT current_database()", as: String.self) }
            #expect(name.map { app.app.configuration.databaseURL?.hasSuffix("/" + $0) == true } == true)
        }
        let applied = try app.kith.app.database.read {
            try $0.queryValue("SELECT count(*) FROM schema_migrations", as: Int64.self)
        }
        #expect(applied == Int64(try FileManager.default.contentsOfDirectory(atPath: Self.migrationsDirectory).filter { $0.hasSuffix(".sql") }.count))
    }

    static var migrationsDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Migrations").path
    }
}

@Suite("The kith command", .serialized)
struct CommandTests {
    @Test("--help documents the commands and options")
    func help() throws {
        let (status, output) = try run("kith", ["--help"])
        #expect(status == 0)
        for word in ["serve", "migrate", "backup", "--port", "--data", "--base-url", "KITH_PORT"] {
            #expect(output.contains(word), "\(word)")
        }
    }

    @Test("a bad flag is a usage error, not a crash")
    func badFlag() throws {
        let (status, output) = try run("kith", ["--port", "eighty"])
        #expect(status == 2)
        #expect(output.contains("not a port number"))
    }

    @Test("SIGTERM stops the server gracefully with exit status 0")
    func sigterm() throws {
        let directory = try TemporaryDirectory()
        let kith = try KithProcess(arguments: ["serve", "--port", "0", "--data", directory.path, "--quiet"])
        let client = try TestClient(port: kith.port)
        try client.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try client.readResponse().status == 200)
        kith.signal(SIGTERM)
        #expect(kith.wait() == 0)
    }

    @Test("kith migrate applies migrations once, then reports the database up to date")
    func migrate() throws {
        let directory = try TemporaryDirectory()
        let first = try run("kith", ["migrate", "--data", directory.path])
        #expect(first.status == 0)
        #expect(first.output.contains("applied"))
        let second = try run("kith", ["migrate", "--data", directory.path])
        #expect(second.output.contains("up to date"))
    }

    @Test("kith backup copies the database while the server runs")
    func backupWhileServing() throws {
        let directory = try TemporaryDirectory()
        let kith = try KithProcess(arguments: ["serve", "--port", "0", "--data", directory.path, "--quiet"])
        _ = kith
        let destination = directory.path + "/backup.sqlite"
        let result = try run("kith", ["backup", destination, "--data", directory.path])
        #expect(result.status == 0, "\(result.output)")
        let copy = try Database(path: destination)
        defer { copy.close() }
        #expect(try copy.read { try $0.queryValue("PRAGMA integrity_check", as: String.self) } == "ok")
        #expect(try copy.read { try $0.queryValue("SELECT count(*) FROM schema_migrations", as: Int64.self) } ?? 0 > 0)
        let again = try run("kith", ["backup", destination, "--data", directory.path])
        #expect(again.status != 0, "an existing file is never overwritten")
    }

    @Test("an acknowledged write survives kill -9")
    func durability() throws {
        let directory = try TemporaryDirectory()
        let message = "written before the crash \(getpid())"
        do {
            let server = try KithProcess("kith-bench", arguments: ["--port", "0", "--data", directory.path, "--quiet"])
            let client = try TestClient(port: server.port)
            let body = "message=" + message.replacingOccurrences(of: " ", with: "+")
            try client.send("POST /fortunes HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(try client.readResponse().status == 201)
            server.signal(SIGKILL)
            _ = server.wait()
        }
        let restarted = try KithProcess("kith-bench", arguments: ["--port", "0", "--data", directory.path, "--quiet"])
        let client = try TestClient(port: restarted.port)
        try client.send("GET /fortunes HTTP/1.1\r\nHost: t\r\n\r\n")
        let page = try client.readResponse().text
        #expect(page.contains(message))
        #expect(page.contains("&lt;script&gt;"), "fortunes are escaped")
    }
}
