import Foundation
import KithTestSupport
import Testing

/// `kith serve` lets go of its start-up code once it is listening
/// (`kith_release_startup_code`); the figure it saves is bench_app.py's, this
/// is the behaviour: the mappings are marked random-access, and the server
/// runs on from the page cache.
@Suite("kith serve after start-up")
struct StartupMemoryTests {
    /// The process's read-only mappings of its own executable: resident KiB,
    /// and whether the kernel now treats them as random-access (VmFlags `rr`).
    func binaryCode(of pid: Int32, binary: String) throws -> [(rss: Int, random: Bool)] {
        let smaps = try String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8)
        var result: [(rss: Int, random: Bool)] = []
        var inBinary = false
        var rss = 0
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if !first.hasSuffix(":"), first.contains("-"), fields.count >= 2 {
                inBinary = fields[1] == "r-xp" && line.hasSuffix(binary)
            } else if inBinary, first == "Rss:", fields.count >= 2 {
                rss = Int(fields[1]) ?? 0
            } else if inBinary, first == "VmFlags:" {
                result.append((rss, fields.contains("rr")))
            }
        }
        return result
    }

    @Test("once listening, its code mappings are marked random-access, and it still serves every page it did")
    func codeReleased() throws {
        let directory = try TemporaryDirectory()
        let kith = try KithProcess(arguments: ["serve", "--port", "0", "--data", directory.path, "--quiet"])
        let pid = kith.process.processIdentifier
        let binary = KithProcess.executable("kith").path
        var code: [(rss: Int, random: Bool)] = []
        let deadline = Clock.now + 20
        repeat {
            code = try binaryCode(of: pid, binary: binary)
            if !code.isEmpty && code.allSatisfy({ $0.random }) { break }
            usleep(50_000)
        } while Clock.now < deadline
        #expect(!code.isEmpty, "the binary's code is mapped")
        #expect(code.allSatisfy { $0.random }, "released and marked once serving")
        // Code faults back in from the page cache as pages are served.
        let client = try TestClient(port: kith.port)
        for path in ["/", "/signin", "/signup"] {
            try client.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try client.readResponse().status == 200, "\(path)")
        }
        kith.signal(SIGTERM)
        #expect(kith.wait() == 0)
    }
}
