import Foundation
import Glibc
import KithTestSupport
import Testing

/// libpq and libnghttp2 are loaded by the first thing that needs them, so a
/// server on SQLite that no HTTP/2 client has reached maps neither. These
/// tests run the real `kith serve` binary and read its /proc/PID/maps: the
/// test process itself has both libraries loaded and proves nothing.
@Suite("Lazy libraries")
struct LazyLibraryTests {
    /// Read to the end: /proc reports a size of 0, and a read sized by it
    /// stops after the first page.
    private static func mapped(_ process: KithProcess) throws -> String {
        guard let file = FileHandle(forReadingAtPath: "/proc/\(process.process.processIdentifier)/maps") else {
            throw TestError("no maps for the server")
        }
        defer { try? file.close() }
        return String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
    }

    /// A directory whose `libpq.so.5` and `libnghttp2.so.14` are empty files:
    /// with it first on LD_LIBRARY_PATH, dlopen finds them and refuses them,
    /// as it would a machine without the runtime packages.
    private static func brokenLibraries() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory("kith-no-libs")
        try directory.write("libpq.so.5", "")
        try directory.write("libnghttp2.so.14", "")
        return directory
    }

    @Test("on SQLite neither libpq nor libnghttp2 is mapped at start; one h2c request maps libnghttp2 and not libpq",
          .enabled(if: HTTP2Client.available))
    func loadedOnFirstUse() throws {
        let data = try TemporaryDirectory("kith-lazy")
        let kith = try KithProcess(arguments: ["serve", "--port", "0", "--data", data.path, "--quiet"])
        let before = try Self.mapped(kith)
        #expect(before.contains("libsqlite3"), "the maps were read from the server, which has SQLite open")
        #expect(!before.contains("libnghttp2.so"))
        #expect(!before.contains("libpq.so"))
        // An HTTP/1.1 request does not need HTTP/2 either.
        let plain = try TestClient(port: kith.port)
        try plain.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(try plain.readResponse().status == 200)
        #expect(!(try Self.mapped(kith)).contains("libnghttp2.so"))

        let response = try HTTP2Client.run("get", port: kith.port, ["/"])
        #expect(response["status"] as? Int == 200)
        let after = try Self.mapped(kith)
        #expect(after.contains("libnghttp2.so.14"))
        #expect(!after.contains("libpq.so"))
    }

    @Test("without a loadable libnghttp2 the HTTP/2 preface gets HTTP/1.1's 505 and the server keeps serving")
    func noHTTP2WithoutLibrary() throws {
        let data = try TemporaryDirectory("kith-lazy")
        let broken = try Self.brokenLibraries()
        let kith = try KithProcess(
            wrapper: ["/usr/bin/env", "LD_LIBRARY_PATH=\(broken.path)"],
            arguments: ["serve", "--port", "0", "--data", data.path, "--quiet"])
        let client = try TestClient(port: kith.port)
        try client.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        let refused = try client.readResponse()
        // What a server with HTTP/2 turned off answers: an HTTP/1.1 response, not a SETTINGS frame.
        #expect(refused.status == 505)
        #expect(!(try Self.mapped(kith)).contains("libnghttp2.so"))
        let plain = try TestClient(port: kith.port)
        try plain.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(try plain.readResponse().status == 200)
        #expect(kith.process.isRunning)
    }

    @Test("without a loadable libpq, --database postgres:// stops with a message that names libpq")
    func noPostgresWithoutLibrary() throws {
        let data = try TemporaryDirectory("kith-lazy")
        let broken = try Self.brokenLibraries()
        let result = try runProgram(
            "/usr/bin/env",
            ["LD_LIBRARY_PATH=\(broken.path)", KithProcess.executable("kith").path, "serve", "--port", "0",
             "--data", data.path, "--quiet", "--database", "postgres://kith@127.0.0.1:1/kith"],
            mergingErrors: true)
        #expect(result.status != 0)
        #expect(result.output.contains("libpq is not installed"), "\(result.output)")
    }

    @Test("with --database postgres:// libpq is mapped once the server is up")
    func postgresLoadsLibpq() throws {
        guard let postgres = try PostgresTestDatabase.fresh() else { return }
        let data = try TemporaryDirectory("kith-lazy")
        let kith = try KithProcess(arguments: ["serve", "--port", "0", "--data", data.path, "--quiet", "--database", postgres.url])
        let maps = try Self.mapped(kith)
        #expect(maps.contains("libpq.so.5"))
        #expect(!maps.contains("libnghttp2.so"))
    }
}
