import Glibc
import KithCrypto
import KithHTTP

/// Everything `kith` can be told, from flags or `KITH_*` environment
/// variables (flags win). `kith --help` prints `CommandLine.usage`.
public struct KithConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// Holds `kith.sqlite`, `media/` and `tmp/`.
    public var dataDirectory = "./data"
    /// A `postgres://` URL: the database lives there instead of in
    /// `kith.sqlite` (media and uploads stay in the data directory).
    public var databaseURL: String?
    /// PostgreSQL sessions for reads; writes take one more.
    public var databasePool = 8
    /// Where uploads and photo variants live when several instances share
    /// them (a network volume); nil keeps them in the data directory.
    public var mediaDirectory: String?
    /// The public address people use. Absolute links, the expected `Origin`
    /// and `Secure` cookies derive from it. Defaults to `http://HOST:PORT`.
    public var baseURL: String?
    /// HTTPS on this port, for `domain`; the plain port then redirects to it.
    public var httpsPort: Int?
    /// The public name: in the certificate, the base URL and redirects.
    public var domain: String?
    /// An operator's own certificate chain and key (PEM); without them
    /// `certs/fullchain.pem` and `certs/privkey.pem` in the data directory.
    public var certificateFile: String?
    public var keyFile: String?
    /// Where `Public/` and `Migrations/` are; found automatically when nil.
    public var root: String?
    /// Development mode: the styleguide is served.
    public var development = false
    public var eventLoops = 2
    public var workers = 16
    public var logRequests = true
    /// Buffer sizes, heartbeat and lifetimes of live streams.
    public var live = LiveHub.Limits()
    /// Argon2id costs. Tests lower them; production keeps OWASP's minimum or more.
    public var passwordParameters = PasswordHasher.Parameters.owaspMinimum
    /// The largest photo, voice note and video a person may upload.
    public var mediaLimits = MediaLimits()
    // Fair shares of the server (see the README's Security section).
    /// Reverse proxies whose forwarding headers name the real client.
    public var trustedProxies: [AddressBlock] = []
    /// Open connections one client address may hold.
    public var maxConnectionsPerAddress = 256
    /// Disk space for uploads in progress, in all and per client address, in bytes.
    public var uploadSpaceBytes: Int64 = 4_000_000_000
    public var uploadSpacePerAddressBytes: Int64 = 1_000_000_000
    /// Kith's own certificate over ACME (`--acme-*`).
    public var acme = ACMEOptions()

    /// Seconds since 1970. Tests move time forward by replacing it.
    public var clock: @Sendable () -> Int64 = { Int64(time(nil)) }

    // MARK: Limits against floods
    // Throttles and caps that keep one client from starving the others. The
    // per-address live stream cap is `live.maxStreamsPerAddress`; its flag is
    // parsed with these (`CommandLineParser.applyFloodLimit…`).

    /// The password hash queue, and accounts and guests per address.
    public var floodLimits = FloodLimits()

    public init() {}

    public var effectiveBaseURL: String {
        if let baseURL, !baseURL.isEmpty { return baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL }
        // Cookies turn `Secure` and the expected `Origin` becomes https://… from here.
        if let httpsPort, let domain { return TLSSettings.origin(domain: domain, port: httpsPort) }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "http://\(shownHost):\(port)"
    }

    public var databasePath: String { dataDirectory + "/kith.sqlite" }

    /// Holds `media/` and `variants/`: `--media`, else the data directory.
    public var effectiveMediaDirectory: String { mediaDirectory ?? dataDirectory }

    /// The certificate chain and key the HTTPS port serves and watches.
    public var certificatePaths: (chain: String, key: String) {
        (certificateFile ?? dataDirectory + "/certs/fullchain.pem", keyFile ?? dataDirectory + "/certs/privkey.pem")
    }
}

/// Upload size limits per kind of media, in bytes.
public struct MediaLimits: Sendable, Equatable {
    public var photoBytes = 20 * 1_000_000
    public var voiceBytes = 50 * 1_000_000
    public var videoBytes = 500 * 1_000_000
    public init() {}
}

/// Throttles against floods that an operator may need to widen: a school
/// behind one address makes more accounts in an hour than a family does.
public struct FloodLimits: Sendable, Equatable {
    /// Callers that may wait for a password hash before the rest are answered
    /// 503 at once; nil: four per core, but never more than keeps half the
    /// workers free (`Passwords.defaultMaxWaiting`).
    public var passwordQueue: Int?
    /// Accounts one address may make per hour. Sign-ups and claims that
    /// reach the password hash are allowed twice as many.
    public var accountsPerAddressPerHour = 40
    /// Guests one address may make per hour through invite links.
    public var guestsPerAddressPerHour = 60
    public init() {}
}

/// What the command line asked for.
public enum KithCommand: Sendable, Equatable {
    case serve
    case migrate
    case backup(destination: String)
    /// Prints a one-time password reset link for a password account.
    case resetUser(username: String)
    /// Issues the `--acme-domain` certificate now, in the foreground.
    case certificate
    case help
}

public struct UsageError: Error, CustomStringConvertible {
    public let description: String
    public init(_ message: String) { description = message }
}

public enum CommandLineParser {
    public static let usage = """
        kith — small groups sharing occasions, plate games and tallies.

        Usage:
          kith [serve] [options]     serve Kith (the default)
          kith migrate [options]     apply pending database migrations and exit
          kith backup FILE [options] write a consistent copy of the database to FILE,
                                     safe while the server runs
          kith user reset USERNAME [options]
                                     print a one-time link (valid 24 hours) that signs
                                     in as USERNAME and asks for a new password; set
                                     --base-url so the link has the public address
          kith certificate --acme-domain D [options]
                                     get a certificate for D over ACME now, serving the
                                     http-01 answer on --port (80 in production), and
                                     store it in DATA/certs/
          kith --help                this text

        Options (environment variable in brackets):
          --host HOST        address to listen on [KITH_HOST] (127.0.0.1)
          --port PORT        port to listen on, 0 for any free one [KITH_PORT] (8080)
          --data DIR         data directory: kith.sqlite, media/, tmp/ [KITH_DATA] (./data)
          --database URL     keep the data in PostgreSQL instead of kith.sqlite:
                             postgres://USER[:PASSWORD]@HOST[:PORT]/DB [KITH_DATABASE]
          --database-pool N  PostgreSQL sessions for reads [KITH_DATABASE_POOL] (8)
          --media DIR        uploads and photo variants, shared by every instance
                             [KITH_MEDIA] (the data directory)
          --base-url URL     public URL, e.g. https://kith.example.org [KITH_BASE_URL]
                             (http://HOST:PORT)
          --https-port PORT  serve HTTPS on PORT; the plain --port then redirects there,
                             answering only /.well-known/acme-challenge/ [KITH_HTTPS_PORT]
          --domain NAME      the public name, e.g. kith.example.org (needed with
                             --https-port; the base URL becomes https://NAME) [KITH_DOMAIN]
          --cert FILE        certificate chain, PEM [KITH_CERT] (DATA/certs/fullchain.pem,
                             which Kith gets and renews itself over ACME)
          --key FILE         its private key, PEM [KITH_KEY] (DATA/certs/privkey.pem);
                             both are re-read when they change, and on SIGHUP
          --root DIR         folder holding Public/ and Migrations/ [KITH_ROOT]
                             (found beside the executable when not given)
          --dev              development mode: serves /styleguide [KITH_DEV=1]
          --event-loops N    I/O threads [KITH_EVENT_LOOPS] (2)
          --workers N        handler threads [KITH_WORKERS] (16)
          --quiet            no per-request log lines [KITH_LOG=0]
          --max-photo-mb N   largest photo upload [KITH_MAX_PHOTO_MB] (20)
          --max-voice-mb N   largest voice note upload [KITH_MAX_VOICE_MB] (50)
          --max-video-mb N   largest video upload [KITH_MAX_VIDEO_MB] (500)
          --trusted-proxy CIDR[,CIDR…]
                             reverse proxies whose X-Forwarded-For / Forwarded
                             name the client [KITH_TRUSTED_PROXY] (none)
          --max-connections-per-address N
                             open connections per client address
                             [KITH_MAX_CONNECTIONS_PER_ADDRESS] (256)
          --upload-space-mb N
                             disk for uploads in progress, in all [KITH_UPLOAD_SPACE_MB] (4000)
          --upload-space-per-address-mb N
                             the same, per client address [KITH_UPLOAD_SPACE_PER_ADDRESS_MB] (1000)
          --password-queue N sign-ins waiting for a password hash before the rest get 503
                             [KITH_PASSWORD_QUEUE] (4 per core, at most half the workers)
          --accounts-per-hour N
                             accounts one address may make per hour [KITH_ACCOUNTS_PER_HOUR] (40)
          --guests-per-hour N
                             guests one address may make per hour [KITH_GUESTS_PER_HOUR] (60)
          --streams-per-address N
                             open live streams per address [KITH_STREAMS_PER_ADDRESS] (64)
          --acme-domain D[,D…]
                             get and renew a certificate for these names over ACME
                             [KITH_ACME_DOMAIN] (with --https-port and no --cert:
                             the --domain name; otherwise none is fetched)
          --acme-directory URL
                             the ACME directory [KITH_ACME_DIRECTORY] (Let's Encrypt)
          --acme-staging     use Let's Encrypt's staging directory instead
          --acme-ca-file FILE
                             a PEM root trusted for the directory's HTTPS [KITH_ACME_CA_FILE]
          --acme-email ADDRESS
                             contact the CA may write to [KITH_ACME_EMAIL] (none)
          --acme-challenge http-01|tls-alpn-01
                             how the CA checks the names [KITH_ACME_CHALLENGE] (http-01)
        """

    public static func parse(_ arguments: [String], environment: [String: String]) throws -> (KithCommand, KithConfiguration) {
        var config = KithConfiguration()
        if let value = environment["KITH_HOST"] { config.host = value }
        if let value = environment["KITH_PORT"] { config.port = try port(value) }
        if let value = environment["KITH_DATA"] { config.dataDirectory = value }
        if let value = environment["KITH_DATABASE"], !value.isEmpty { config.databaseURL = try databaseURL(value) }
        if let value = environment["KITH_MEDIA"], !value.isEmpty { config.mediaDirectory = value }
        if let value = environment["KITH_DATABASE_POOL"] { config.databasePool = try count(value, "KITH_DATABASE_POOL") }
        if let value = environment["KITH_BASE_URL"] { config.baseURL = try baseURL(value) }
        if let value = environment["KITH_ROOT"] { config.root = value }
        if let value = environment["KITH_HTTPS_PORT"], !value.isEmpty { config.httpsPort = try port(value) }
        if let value = environment["KITH_DOMAIN"], !value.isEmpty { config.domain = try domain(value) }
        if let value = environment["KITH_CERT"], !value.isEmpty { config.certificateFile = value }
        if let value = environment["KITH_KEY"], !value.isEmpty { config.keyFile = value }
        if let value = environment["KITH_DEV"] { config.development = value == "1" || value == "true" }
        if let value = environment["KITH_EVENT_LOOPS"] { config.eventLoops = try count(value, "KITH_EVENT_LOOPS") }
        if let value = environment["KITH_WORKERS"] { config.workers = try count(value, "KITH_WORKERS") }
        if let value = environment["KITH_LOG"] { config.logRequests = !(value == "0" || value == "false") }
        if let value = environment["KITH_MAX_PHOTO_MB"] { config.mediaLimits.photoBytes = try megabytes(value, "KITH_MAX_PHOTO_MB") }
        if let value = environment["KITH_MAX_VOICE_MB"] { config.mediaLimits.voiceBytes = try megabytes(value, "KITH_MAX_VOICE_MB") }
        if let value = environment["KITH_MAX_VIDEO_MB"] { config.mediaLimits.videoBytes = try megabytes(value, "KITH_MAX_VIDEO_MB") }
        if let value = environment["KITH_TRUSTED_PROXY"] { config.trustedProxies = try addressBlocks(value) }
        if let value = environment["KITH_MAX_CONNECTIONS_PER_ADDRESS"] {
            config.maxConnectionsPerAddress = try connections(value, "KITH_MAX_CONNECTIONS_PER_ADDRESS")
        }
        if let value = environment["KITH_UPLOAD_SPACE_MB"] { config.uploadSpaceBytes = Int64(try megabytes(value, "KITH_UPLOAD_SPACE_MB", upTo: 1_000_000)) }
        if let value = environment["KITH_UPLOAD_SPACE_PER_ADDRESS_MB"] {
            config.uploadSpacePerAddressBytes = Int64(try megabytes(value, "KITH_UPLOAD_SPACE_PER_ADDRESS_MB", upTo: 1_000_000))
        }
        try applyFloodLimitEnvironment(environment, to: &config)
        for (variable, flag) in acmeVariables { if let value = environment[variable] { _ = try applyACMEFlag(flag, value: { value }, to: &config) } }

        var command: KithCommand?
        var rest = arguments[...]
        func value(for flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "serve" where command == nil: command = .serve
            case "migrate" where command == nil: command = .migrate
            case "backup" where command == nil:
                guard let destination = rest.popFirst(), !destination.hasPrefix("--") else {
                    throw UsageError("backup needs a destination file: kith backup FILE")
                }
                command = .backup(destination: destination)
            case "user" where command == nil:
                guard rest.popFirst() == "reset" else {
                    throw UsageError("unknown user command: kith user reset USERNAME (see kith --help)")
                }
                guard let username = rest.popFirst(), !username.hasPrefix("--") else {
                    throw UsageError("user reset needs a username: kith user reset USERNAME")
                }
                command = .resetUser(username: username)
            case "certificate" where command == nil: command = .certificate
            case "--help", "-h", "help": return (.help, config)
            case "--host": config.host = try value(for: argument)
            case "--port": config.port = try port(try value(for: argument))
            case "--data": config.dataDirectory = try value(for: argument)
            case "--database": config.databaseURL = try databaseURL(try value(for: argument))
            case "--media": config.mediaDirectory = try value(for: argument)
            case "--database-pool": config.databasePool = try count(try value(for: argument), argument)
            case "--base-url": config.baseURL = try baseURL(try value(for: argument))
            case "--root": config.root = try value(for: argument)
            case "--https-port": config.httpsPort = try port(try value(for: argument))
            case "--domain": config.domain = try domain(try value(for: argument))
            case "--cert": config.certificateFile = try value(for: argument)
            case "--key": config.keyFile = try value(for: argument)
            case "--dev": config.development = true
            case "--event-loops": config.eventLoops = try count(try value(for: argument), argument)
            case "--workers": config.workers = try count(try value(for: argument), argument)
            case "--quiet": config.logRequests = false
            case "--max-photo-mb": config.mediaLimits.photoBytes = try megabytes(try value(for: argument), argument)
            case "--max-voice-mb": config.mediaLimits.voiceBytes = try megabytes(try value(for: argument), argument)
            case "--max-video-mb": config.mediaLimits.videoBytes = try megabytes(try value(for: argument), argument)
            case "--trusted-proxy": config.trustedProxies = try addressBlocks(try value(for: argument))
            case "--max-connections-per-address": config.maxConnectionsPerAddress = try connections(try value(for: argument), argument)
            case "--upload-space-mb": config.uploadSpaceBytes = Int64(try megabytes(try value(for: argument), argument, upTo: 1_000_000))
            case "--upload-space-per-address-mb":
                config.uploadSpacePerAddressBytes = Int64(try megabytes(try value(for: argument), argument, upTo: 1_000_000))
            default:
                guard try applyFloodLimitFlag(argument, value: { try value(for: argument) }, to: &config)
                    || applyACMEFlag(argument, value: { try value(for: argument) }, to: &config)
                else {
                    throw UsageError("unknown argument: \(argument) (see kith --help)")
                }
            }
        }
        try checkHTTPS(config)
        // HTTPS with no certificate of the operator's own: Kith gets one itself.
        if config.httpsPort != nil, let domain = config.domain, config.certificateFile == nil, config.acme.domains.isEmpty {
            config.acme.domains = [domain]
        }
        if command == .certificate && config.acme.domains.isEmpty {
            throw UsageError("certificate needs the names to certify: kith certificate --acme-domain D")
        }
        return (command ?? .serve, config)
    }

    private static func checkHTTPS(_ config: KithConfiguration) throws {
        if config.httpsPort != nil && config.domain == nil {
            throw UsageError("--https-port needs --domain: the name people type, which the certificate is for")
        }
        if config.domain != nil && config.httpsPort == nil {
            throw UsageError("--domain is for HTTPS: give --https-port too (usually 443)")
        }
        if (config.certificateFile == nil) != (config.keyFile == nil) {
            throw UsageError("--cert and --key go together: the certificate chain and its private key")
        }
        if let httpsPort = config.httpsPort, httpsPort != 0, httpsPort == config.port {
            throw UsageError("--https-port and --port must differ")
        }
    }

    /// A host name as it appears in a certificate: letters, digits, dots, hyphens.
    private static func domain(_ text: String) throws -> String {
        let name = text.lowercased()
        let allowed = name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D }
        guard !name.isEmpty, name.utf8.count <= 253, allowed, !name.hasPrefix("."), !name.hasSuffix(".") else {
            throw UsageError("not a domain name: \(text) (e.g. kith.example.org)")
        }
        return name
    }

    // MARK: ACME

    private static let acmeVariables = [
        ("KITH_ACME_DOMAIN", "--acme-domain"), ("KITH_ACME_DIRECTORY", "--acme-directory"),
        ("KITH_ACME_CA_FILE", "--acme-ca-file"), ("KITH_ACME_EMAIL", "--acme-email"),
        ("KITH_ACME_CHALLENGE", "--acme-challenge"),
    ]

    /// False when `argument` is not one of the `--acme-*` flags.
    private static func applyACMEFlag(_ argument: String, value: () throws -> String, to config: inout KithConfiguration) throws -> Bool {
        switch argument {
        case "--acme-staging": config.acme.directoryURL = ACMEOptions.letsEncryptStaging
        case "--acme-directory":
            let url = try value()
            guard url.hasPrefix("https://"), !url.contains(" ") else { throw UsageError("--acme-directory takes an https:// URL") }
            config.acme.directoryURL = url
        case "--acme-ca-file":
            let path = try value()
            guard access(path, R_OK) == 0 else { throw UsageError("--acme-ca-file: cannot read \(path)") }
            config.acme.caFile = path
        case "--acme-email":
            let email = try value()
            guard email.contains("@"), !email.contains(where: { $0 == " " || $0 == "," || $0 == "\"" }) else {
                throw UsageError("--acme-email takes an email address")
            }
            config.acme.email = email
        case "--acme-domain":
            let domains = try value().split(separator: ",").map { String($0).trimmingWhitespace().lowercased() }
            guard !domains.isEmpty, domains.allSatisfy(ACMEOptions.isDomainName) else {
                throw UsageError("\(argument) takes domain names separated by commas")
            }
            config.acme.domains = domains
        case "--acme-challenge":
            let text = try value()
            guard let challenge = ACMEOptions.Challenge(rawValue: text) else {
                throw UsageError("--acme-challenge is http-01 or tls-alpn-01")
            }
            config.acme.challenge = challenge
        default: return false
        }
        return true
    }

    // MARK: Limits against floods

    /// The flood limits' flags and their variables, one table for both.
    private static let floodLimitOptions: [(flag: String, variable: String, set: @Sendable (inout KithConfiguration, Int) -> Void)] = [
        ("--password-queue", "KITH_PASSWORD_QUEUE", { $0.floodLimits.passwordQueue = $1 }),
        ("--accounts-per-hour", "KITH_ACCOUNTS_PER_HOUR", { $0.floodLimits.accountsPerAddressPerHour = $1 }),
        ("--guests-per-hour", "KITH_GUESTS_PER_HOUR", { $0.floodLimits.guestsPerAddressPerHour = $1 }),
        ("--streams-per-address", "KITH_STREAMS_PER_ADDRESS", { $0.live.maxStreamsPerAddress = $1 }),
    ]

    private static func applyFloodLimitEnvironment(_ environment: [String: String], to config: inout KithConfiguration) throws {
        for option in floodLimitOptions {
            if let text = environment[option.variable] { option.set(&config, try limit(text, option.variable)) }
        }
    }

    /// False when `argument` is not one of these flags.
    private static func applyFloodLimitFlag(
        _ argument: String, value: () throws -> String, to config: inout KithConfiguration
    ) throws -> Bool {
        guard let option = floodLimitOptions.first(where: { $0.flag == argument }) else { return false }
        option.set(&config, try limit(try value(), argument))
        return true
    }

    private static func limit(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text), (1...100_000).contains(value) else { throw UsageError("\(name) takes a number from 1 to 100000") }
        return value
    }

    private static func databaseURL(_ text: String) throws -> String {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else {
            throw UsageError("--database takes a postgres:// URL (leave it out to keep kith.sqlite in --data)")
        }
        return text
    }

    private static func port(_ text: String) throws -> Int {
        guard let value = Int(text), (0...65535).contains(value) else { throw UsageError("not a port number: \(text)") }
        return value
    }

    private static func count(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text), (1...1024).contains(value) else { throw UsageError("\(name) takes a number from 1 to 1024") }
        return value
    }

    private static func megabytes(_ text: String, _ name: String, upTo limit: Int = 4000) throws -> Int {
        guard let value = Int(text), (1...limit).contains(value) else { throw UsageError("\(name) takes megabytes from 1 to \(limit)") }
        return value * 1_000_000
    }

    private static func connections(_ text: String, _ name: String) throws -> Int {
        guard let value = Int(text), (1...1_000_000).contains(value) else { throw UsageError("\(name) takes a number from 1 to 1000000") }
        return value
    }

    /// `10.0.0.0/8,::1` and the like; an empty list is allowed (trust nobody).
    private static func addressBlocks(_ text: String) throws -> [AddressBlock] {
        try text.split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }.map {
            guard let block = AddressBlock($0) else { throw UsageError("not an address or CIDR block: \($0)") }
            return block
        }
    }

    private static func baseURL(_ text: String) throws -> String {
        guard text.hasPrefix("http://") || text.hasPrefix("https://"), !text.contains(" ") else {
            throw UsageError("the base URL must start with http:// or https://: \(text)")
        }
        return text
    }
}
