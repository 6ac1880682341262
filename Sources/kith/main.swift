import CKithShim
import Glibc
import KithApp
import KithHTTP
import KithStorage

// Signals are blocked before any thread exists, so every thread inherits the
// mask and SIGTERM/SIGINT arrive only through the signalfd read below.
ShutdownSignal.blockSignals()

func fail(_ message: String, status: Int32 = 1) -> Never {
    Console.error("kith: \(message)")
    exit(status)
}

func environment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}

let command: KithCommand
let configuration: KithConfiguration
do {
    (command, configuration) = try CommandLineParser.parse(Array(CommandLine.arguments.dropFirst()), environment: environment())
} catch {
    fail("\(error)", status: 2)
}

switch command {
case .help:
    Console.out(CommandLineParser.usage)

case .serve:
    let logger = Logger(enabled: configuration.logRequests)
    let kith: KithServer
    do {
        kith = KithServer(app: try makeApp(configuration, logger: logger))
        try kith.start()
    } catch {
        fail("could not start: \(error)")
    }
    var shown = configuration
    shown.port = kith.port
    let url = configuration.baseURL ?? shown.effectiveBaseURL
    let https = kith.certificates == nil ? "" : " and \(kith.httpsPort) (HTTPS)"
    Console.out("""
        Kith is serving at \(url)
          listening on \(configuration.host):\(kith.port)\(https), data in \(configuration.dataDirectory)\(configuration.databaseURL == nil ? "" : " and PostgreSQL")\(configuration.mediaDirectory.map { ", media in \($0)" } ?? "")
          Ctrl-C to stop
        """)
    if let files = kith.certificateFiles, kith.certificates?.current == nil {
        Console.out("  no TLS certificate yet: waiting for \(files.chainPath) and \(files.keyPath)")
    }
    // Serving from here on: what only start-up needed goes back. SQLite's
    // pages cached by the migrations, the heap they and the asset compression
    // freed, and the start-up code. After the background threads' first runs
    // (bounded: a long catch-up must not keep memory from going back), or
    // their code would be let go of while they still run it, and fault back.
    kith.waitForStartRuns(seconds: 10)
    kith.app.database.releaseMemory()
    _ = kith_trim_heap()
    _ = kith_release_startup_code()
    var signal = ShutdownSignal.wait()
    // SIGHUP re-reads the certificate (what certbot's deploy hooks send); with
    // plain HTTP only it stops the server, as before.
    while signal == SIGHUP && kith.certificates != nil {
        kith.reloadCertificates()
        signal = ShutdownSignal.wait()
    }
    Console.out("kith: signal \(signal), shutting down")
    kith.shutdown()
    Console.out("kith: stopped")

case .migrate:
    do {
        let resources = try Resources.locate(explicitRoot: configuration.root)
        let (database, applied) = try openDatabase(configuration, resources: resources)
        database.close()
        Console.out(applied.isEmpty ? "kith: the database is up to date" : applied.map { "applied \($0)" }.joined(separator: "\n"))
    } catch {
        fail("migrate: \(error)")
    }

case .backup(let destination):
    guard configuration.databaseURL == nil else {
        fail("backup: a PostgreSQL database is backed up with pg_dump")
    }
    guard access(configuration.databasePath, F_OK) == 0 else {
        fail("backup: there is no database at \(configuration.databasePath) (see --data)")
    }
    do {
        let database = try Database(path: configuration.databasePath)
        defer { database.close() }
        try database.backup(to: destination)
        Console.out("kith: backed up \(configuration.databasePath) to \(destination)")
    } catch {
        fail("backup: \(error)")
    }

case .certificate:
    // The server runs for the duration, so the CA can fetch the http-01 answer.
    let kith: KithServer
    do {
        kith = KithServer(app: try makeApp(configuration, logger: Logger(enabled: configuration.logRequests)))
        try kith.start()
    } catch {
        fail("certificate: could not start: \(error)")
    }
    let outcome = kith.app.certificates.issueNow()
    kith.shutdown()
    switch outcome {
    case .issued(let serial, let notAfter):
        Console.out("kith: certificate \(serial) stored in \(configuration.dataDirectory)/certs/, valid until \(notAfter) (seconds since 1970)")
    case .failed(let message, _):
        fail("certificate: \(message)")
    default:
        fail("certificate: nothing was issued")
    }

case .resetUser(let username):
    guard configuration.databaseURL != nil || access(configuration.databasePath, F_OK) == 0 else {
        fail("user reset: there is no database at \(configuration.databasePath) (see --data)")
    }
    do {
        let database = try configuration.openDatabase()
        defer { database.close() }
        let link = try OperatorReset.issueLink(
            database: database, username: username, baseURL: configuration.effectiveBaseURL, now: configuration.clock())
        // The link alone on standard output, so a script can capture it.
        Console.error("kith: a reset link for \(username): it works once, for 24 hours. Send it to them privately.")
        Console.out(link)
    } catch OperatorReset.Failure.unknownUsername {
        fail("user reset: no account has the username \(username)")
    } catch {
        fail("user reset: \(error)")
    }
}
