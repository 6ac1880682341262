// swift-tools-version:6.0
import PackageDescription

// Kith: the `kith` executable (with `kith-photos`, and `kith-bench`) over these modules.
//   KithSync       the lock the engine and storage share
//   KithHTTP       the HTTP/1.1 and HTTP/2 engine (epoll, TLS, parser, router); knows nothing of Kith
//   KithStorage    SQLite or PostgreSQL: connections, binding interpolation, migrations, backup
//   KithTemplates  HTML values that escape by default (the Templates/ folder)
//   KithCrypto     tokens, digests, password hashing, Web Push, JSON strings
//   KithMedia      media files as bytes: kinds, location stripping, zip archives
//   KithApp        the product, sliced by feature; `makeApp(config)` builds it
// C libraries come from Debian -dev packages as system-library targets.
// The engine's connections and loops are classes touched by one thread each,
// so the run-time exclusivity check on their fields (begin/end access around
// every buffer append) finds nothing the debug build and its tests would not:
// it cost about 7% of the instructions of serving a static file. Debug builds
// keep it.
let engineSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "Kith",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "kith", targets: ["kith"]),
        .executable(name: "kith-bench", targets: ["kith-bench"]),
        .executable(name: "kith-photos", targets: ["kith-photos"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // libpq: the PostgreSQL backend, chosen with `--database postgres://…`.
        // Headers only: CLazyLibraries loads libpq.so.5 on the first connection.
        .systemLibrary(name: "CPostgres", path: "Sources/CPostgres", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", providers: [.apt(["libssl-dev"])]),
        // libssl: the engine's HTTPS listener, and the outbound client that delivers Web Push messages.
        .systemLibrary(name: "CSSL", path: "Sources/CSSL", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCmark", path: "Sources/CCmark", providers: [.apt(["libcmark-dev"])]),
        .systemLibrary(name: "CArgon2", path: "Sources/CArgon2", providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CQREncode", path: "Sources/CQREncode", providers: [.apt(["libqrencode-dev"])]),
        // libvips: right-sized photo variants, and the decoder for iPhones' HEIC
        // photos. Linked only into `kith-photos`, which the server runs per job.
        .systemLibrary(name: "CVips", path: "Sources/CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // gzip and brotli for compressed responses: assets once at start, pages as they go.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CBrotli", path: "Sources/CBrotli", providers: [.apt(["libbrotli-dev"])]),
        // HTTP/2 framing, HPACK and flow control; the engine drives it from its own loop.
        // Headers only, as for CPostgres: loaded when a connection first speaks h2.
        .systemLibrary(name: "CNghttp2", path: "Sources/CNghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // What Glibc does not export to Swift: epoll, eventfd, signalfd, sendfile, accept4.
        .target(name: "CKithShim", path: "Sources/CKithShim"),
        // libpq and libnghttp2 under their own function names, loaded with dlopen
        // on first use: neither is mapped into a server that never needs it.
        .target(name: "CLazyLibraries", path: "Sources/CLazyLibraries"),

        // The lock the engine and storage share for short, hot critical sections.
        .target(name: "KithSync", path: "Sources/KithSync"),
        .target(
            name: "KithHTTP", dependencies: ["CKithShim", "CCrypto", "CSSL", "KithSync", "CZlib", "CBrotli", "CNghttp2", "CLazyLibraries"],
            path: "Sources/KithHTTP", swiftSettings: engineSettings),
        // libcrypto's SHA-256 for the checksums kept of applied migrations.
        .target(name: "KithStorage", dependencies: ["CSQLite", "CPostgres", "CLazyLibraries", "CCrypto", "KithSync"], path: "Sources/KithStorage"),
        .target(name: "KithTemplates", dependencies: ["CCmark"], path: "Templates"),
        // Random tokens, digests, HMAC and Argon2id password hashing for accounts and sessions.
        .target(name: "KithCrypto", dependencies: ["CCrypto", "CArgon2"], path: "Sources/KithCrypto"),
        // Media files as bytes: what a file is, what it says about where it
        // was made, and zip archives. Pure Swift, no I/O policy.
        .target(name: "KithMedia", dependencies: ["CZlib"], path: "Sources/KithMedia"),
        .target(
            name: "KithApp",
            dependencies: ["KithHTTP", "KithStorage", "KithTemplates", "KithCrypto", "KithMedia", "KithSync", "CCrypto", "CQREncode", "CSSL"],
            path: "Sources/KithApp"
        ),
        .executableTarget(name: "kith", dependencies: ["KithApp"], path: "Sources/kith"),
        // Reads and resizes one photo per run, in its own process: the server's
        // memory stays free of libvips, and a decoder crash stays out of it.
        .executableTarget(name: "kith-photos", dependencies: ["CVips", "KithMedia"], path: "Sources/kith-photos"),
        // TechEmpower "plaintext" and "Fortunes" on the same layers, for `make bench`.
        .executableTarget(
            name: "kith-bench",
            dependencies: ["KithHTTP", "KithStorage", "KithTemplates", "CKithShim"],
            path: "Sources/kith-bench"
        ),

        // What the test targets share: a raw-socket client, a browser driver, media
        // fixtures, temporary directories, threads, programs and the tools they need.
        .target(name: "KithTestSupport", dependencies: ["KithHTTP", "KithMedia", "CSSL"], path: "Tests/KithTestSupport"),
        .testTarget(
            name: "KithHTTPTests", dependencies: ["KithHTTP", "KithTestSupport"], path: "Tests/KithHTTPTests",
            exclude: ["Fixtures"]
        ),
        .testTarget(name: "KithStorageTests", dependencies: ["KithStorage", "KithSync", "KithTestSupport"], path: "Tests/KithStorageTests"),
        .testTarget(name: "KithTemplatesTests", dependencies: ["KithTemplates", "KithTestSupport"], path: "Tests/KithTemplatesTests"),
        .testTarget(name: "KithCryptoTests", dependencies: ["KithCrypto", "CArgon2", "KithTestSupport"], path: "Tests/KithCryptoTests"),
        .testTarget(name: "KithMediaTests", dependencies: ["KithMedia", "KithTestSupport"], path: "Tests/KithMediaTests"),
        .testTarget(
            name: "KithAppTests",
            dependencies: ["KithApp", "KithHTTP", "KithStorage", "KithTemplates", "KithCrypto", "KithTestSupport", "CVips"],
            path: "Tests/KithAppTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer harnesses for `make fuzz`, declared only when KITH_FUZZ is set:
// `swift build` builds every executable target, and this one needs the
// sanitizer flags, so the ordinary build and `make test` must not see it.
if Context.environment["KITH_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(
            name: "kith-fuzz", dependencies: ["KithHTTP", "KithMedia"], path: "Tests/Fuzz", exclude: ["Corpus"])
    )
}
