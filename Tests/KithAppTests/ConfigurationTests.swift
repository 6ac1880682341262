import KithApp
import Testing

@Suite("Command line and environment")
struct ConfigurationTests {
    @Test("defaults: serve on 127.0.0.1:8080 with ./data")
    func defaults() throws {
        let (command, config) = try CommandLineParser.parse([], environment: [:])
        #expect(command == .serve)
        #expect(config.host == "127.0.0.1")
        #expect(config.port == 8080)
        #expect(config.dataDirectory == "./data")
        #expect(config.effectiveBaseURL == "http://127.0.0.1:8080")
    }

    @Test("environment variables configure, flags override them")
    func environmentAndFlags() throws {
        let environment = ["KITH_PORT": "9000", "KITH_DATA": "/srv/kith", "KITH_BASE_URL": "https://kith.example.org/"]
        let (_, fromEnvironment) = try CommandLineParser.parse([], environment: environment)
        #expect(fromEnvironment.port == 9000)
        #expect(fromEnvironment.dataDirectory == "/srv/kith")
        #expect(fromEnvironment.effectiveBaseURL == "https://kith.example.org")
        let (_, overridden) = try CommandLineParser.parse(["serve", "--port", "9100"], environment: environment)
        #expect(overridden.port == 9100)
    }

    @Test("upload limits per kind: 20, 50 and 500 MB unless told otherwise; nonsense is a usage error")
    func mediaLimits() throws {
        let defaults = try CommandLineParser.parse([], environment: [:]).1.mediaLimits
        #expect([defaults.photoBytes, defaults.voiceBytes, defaults.videoBytes] == [20_000_000, 50_000_000, 500_000_000])
        let (_, config) = try CommandLineParser.parse(
            ["--max-photo-mb", "8", "--max-video-mb", "1000"], environment: ["KITH_MAX_VOICE_MB": "12", "KITH_MAX_PHOTO_MB": "3"])
        #expect([config.mediaLimits.photoBytes, config.mediaLimits.voiceBytes, config.mediaLimits.videoBytes] == [8_000_000, 12_000_000, 1_000_000_000])
        for bad in ["0", "-5", "lots", "5000"] {
            #expect(throws: UsageError.self) { try CommandLineParser.parse(["--max-photo-mb", bad], environment: [:]) }
        }
    }

    @Test("migrate and backup are commands; backup needs a file")
    func commands() throws {
        #expect(try CommandLineParser.parse(["migrate"], environment: [:]).0 == .migrate)
        #expect(try CommandLineParser.parse(["backup", "/tmp/b.sqlite"], environment: [:]).0 == .backup(destination: "/tmp/b.sqlite"))
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["backup"], environment: [:]) }
    }

    @Test("bad values are usage errors with a message")
    func badValues() {
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--port", "70000"], environment: [:]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--base-url", "kith.example.org"], environment: [:]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--frobnicate"], environment: [:]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse([], environment: ["KITH_WORKERS": "0"]) }
    }

    @Test("an IPv6 host is bracketed in the base URL")
    func ipv6() throws {
        let (_, config) = try CommandLineParser.parse(["--host", "::1", "--port", "80"], environment: [:])
        #expect(config.effectiveBaseURL == "http://[::1]:80")
    }
}
