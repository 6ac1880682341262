import CCrypto
import CKithShim
import Glibc
import Synchronization

/// The files of `Public/`, loaded once at start and served from memory under
/// content-hashed names (`app.css` → `/static/app.3f9c1a2b7e.css`), cached by
/// browsers forever, since a changed file gets a new name. The plain name still
/// works, revalidated by ETag, for the few URLs that must stay stable (the
/// manifest's icons, link-preview images).
public final class StaticFiles: Sendable {
    /// Assets and their variants are classes, though immutable: a response
    /// picks one per request, and a struct of arrays and strings cost a
    /// reference-count operation per field at every copy.
    public final class Asset: Sendable {
        public let name: String
        public let hashedName: String
        public let contentType: String
        /// Stylesheets, scripts, raster images, fonts and sounds go without
        /// the document headers (`ServerConfiguration.documentHeaders`).
        public let kind: Response.Kind
        /// The entity tag of the uncompressed bytes; each encoding has its own.
        public let etag: String
        public let bytes: [UInt8]
        /// Identity first, then each encoding that saves bytes, in the order
        /// the server prefers them.
        public let variants: [Variant]
        /// The encodings on offer besides identity.
        let offered: [ContentCoding]

        init(name: String, hashedName: String, contentType: String, etag: String, bytes: [UInt8], encoded: [(ContentCoding, [UInt8])]) {
            self.name = name
            self.hashedName = hashedName
            self.contentType = contentType
            kind = MediaType.kind(of: contentType)
            self.etag = etag
            self.bytes = bytes
            let negotiable = !encoded.isEmpty
            variants = ([(ContentCoding.identity, bytes)] + encoded).map { [kind] coding, bytes in
                Variant(
                    coding: coding, bytes: bytes, etag: coding.tag(etag), contentType: contentType, kind: kind,
                    negotiable: negotiable)
            }
            offered = encoded.map(\.0)
        }

        public func variant(_ coding: ContentCoding) -> Variant? { variants.first { $0.coding == coding } }
    }

    /// One encoding of an asset, with the header lines of its full response
    /// under each caching rule written once, at start.
    public final class Variant: Sendable {
        public let coding: ContentCoding
        public let bytes: [UInt8]
        public let etag: String
        let negotiable: Bool
        /// The whole-file answers under each caching rule, built once: most
        /// requests for an asset send one of these as it is.
        let immutableResponse: Response
        let revalidatedResponse: Response

        init(coding: ContentCoding, bytes: [UInt8], etag: String, contentType: String, kind: Response.Kind, negotiable: Bool) {
            self.coding = coding
            self.bytes = bytes
            self.etag = etag
            self.negotiable = negotiable
            func fields(_ cacheControl: String) -> PreparedFields {
                PreparedFields(
                    [("Content-Type", contentType)] + (coding == .identity ? [] : [("Content-Encoding", coding.rawValue)])
                        + (negotiable ? [("Vary", "Accept-Encoding")] : [])
                        + [("Cache-Control", cacheControl), ("ETag", etag), ("Accept-Ranges", "bytes")])
            }
            var response = Response(status: .ok, body: .bytes(bytes))
            response.kind = kind
            response.prepared = fields(StaticFiles.immutable)
            immutableResponse = response
            response.prepared = fields(StaticFiles.revalidated)
            revalidatedResponse = response
        }
    }

    static let immutable = "public, max-age=31536000, immutable"
    static let revalidated = "public, no-cache"
    /// File extensions worth compressing; the rest (images, sound) already are.
    static let compressible: Set<String> = ["css", "js", "mjs", "svg", "json", "webmanifest", "txt", "html"]

    private let byHashedName: [String: Asset]
    private let byName: [String: Asset]
    public let prefix: String

    /// Loads every regular file below `directory` (dot-files skipped) and
    /// compresses the text ones at the highest settings, keeping an encoding
    /// only when it is smaller.
    public init(directory: String, prefix: String = "/static/") throws(ServerError) {
        self.prefix = prefix
        var hashed: [String: Asset] = [:]
        var plain: [String: Asset] = [:]
        for relative in try Self.listFiles(directory) {
            guard let bytes = Self.read(directory + "/" + relative) else {
                throw ServerError.system("reading \(relative)", errno)
            }
            let digest = Self.hexDigest(bytes)
            let hashedName = Self.insertHash(String(digest.prefix(10)), into: relative)
            let ext = relative.split(separator: ".").last.map { $0.lowercased() } ?? ""
            let encoded = Self.compressible.contains(ext) ? Self.precompressed(bytes, digest: digest) : []
            let asset = Asset(
                name: relative, hashedName: hashedName, contentType: MediaType.forFilename(relative),
                etag: "\"\(digest.prefix(20))\"", bytes: bytes, encoded: encoded)
            hashed[hashedName] = asset
            plain[relative] = asset
        }
        // Every request for an asset looks it up by name. Swift's tables fill
        // to three quarters and compare whole names along a probe; at a
        // quarter full a lookup almost always finds its name first time.
        byHashedName = Dictionary(minimumCapacity: hashed.count * 4).merging(hashed) { first, _ in first }
        byName = Dictionary(minimumCapacity: plain.count * 4).merging(plain) { first, _ in first }
        // Brotli 11 frees megabytes of working memory here, which glibc
        // would otherwise keep in the heap of a server that then sits idle.
        _ = kith_trim_heap()
    }

    public var assets: [Asset] { Array(byName.values) }

    /// The URL to put in a page. A file that does not exist gets its plain
    /// URL, which answers 404: a broken image is better than a crashed server,
    /// and the app's tests fetch every asset a page links to.
    public func url(_ name: String) -> String {
        prefix + (byName[name]?.hashedName ?? name)
    }

    public func asset(named name: String) -> Asset? { byName[name] }

    /// The response for a path below the prefix, or nil when there is no such file.
    public func response(for name: String, head: RequestHead) -> Response? {
        let immutable: Bool
        let asset: Asset
        if let found = byHashedName[name] {
            asset = found
            immutable = true
        } else if let found = byName[name] {
            asset = found
            immutable = false
        } else {
            return nil
        }
        let rangeHeader = head.headers["Range"]
        // A range counts bytes of one representation; identity is the one
        // every client can use, so ranges always address it.
        var variant = asset.variants[0]
        if rangeHeader == nil, !asset.offered.isEmpty {
            let coding = AcceptEncoding.choose(head.headers["Accept-Encoding"], offered: asset.offered)
            if coding != .identity, let chosen = asset.variant(coding) { variant = chosen }
        }
        // The common case — the whole file, no conditions — uses the header
        // lines built when the asset was loaded.
        let conditional = head.headers["If-None-Match"]
        if rangeHeader == nil && conditional == nil {
            return immutable ? variant.immutableResponse : variant.revalidatedResponse
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", asset.contentType)
        if variant.coding != .identity { headers.add("Content-Encoding", variant.coding.rawValue) }
        if variant.negotiable { headers.add("Vary", "Accept-Encoding") }
        headers.add("Cache-Control", immutable ? Self.immutable : Self.revalidated)
        headers.add("ETag", variant.etag)
        headers.add("Accept-Ranges", "bytes")
        func answer(_ status: HTTPStatus, _ body: [UInt8] = []) -> Response {
            var response = Response(status: status, headers: headers, body: .bytes(body))
            response.kind = asset.kind
            return response
        }
        if let conditional, ETag.matches(conditional, variant.etag) {
            return answer(.notModified)
        }
        let length = Int64(variant.bytes.count)
        let ifRangeHolds = head.headers["If-Range"].map { $0 == variant.etag } ?? true
        let range = ByteRange(header: ifRangeHolds ? rangeHeader : nil, length: length)
        if let contentRange = range.contentRange(length: length) { headers.add("Content-Range", contentRange) }
        switch range {
        case .full:
            return answer(.ok, variant.bytes)
        case .partial(let bytes):
            return answer(.partialContent, Array(variant.bytes[Int(bytes.lowerBound)...Int(bytes.upperBound)]))
        case .unsatisfiable:
            return answer(.rangeNotSatisfiable)
        }
    }

    /// Brotli at quality 11 takes about a second for Kith's stylesheets and
    /// scripts, and the tests start hundreds of servers in one process: the
    /// results are kept for the process, by content digest.
    private static let compressedCache = Mutex<[String: [(ContentCoding, [UInt8])]]>([:])

    static func precompressed(_ bytes: [UInt8], digest: String) -> [(ContentCoding, [UInt8])] {
        if let known = compressedCache.withLock({ $0[digest] }) { return known }
        var encoded: [(ContentCoding, [UInt8])] = []
        // The encoders write into a buffer sized for the worst case; kept for
        // the process's life, each result is copied into one of its own size.
        if let br = Compression.brotli(bytes, quality: 11), br.count < bytes.count { encoded.append((.br, br.withUnsafeBufferPointer { Array($0) })) }
        if let gz = Compression.gzip(bytes, level: 9), gz.count < bytes.count { encoded.append((.gzip, gz.withUnsafeBufferPointer { Array($0) })) }
        compressedCache.withLock { $0[digest] = encoded }
        return encoded
    }

    // MARK: - Loading

    static func insertHash(_ hash: String, into name: String) -> String {
        let slash = name.lastIndex(of: "/").map { name.index(after: $0) } ?? name.startIndex
        if let dot = name[slash...].firstIndex(of: "."), dot != slash {
            return name[..<dot] + "." + hash + name[dot...]
        }
        return name + "." + hash
    }

    private static func listFiles(_ root: String, _ relative: String = "") throws(ServerError) -> [String] {
        let path = relative.isEmpty ? root : root + "/" + relative
        guard let dir = opendir(path) else { throw ServerError.system("opening \(path)", errno) }
        defer { closedir(dir) }
        var files: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            let child = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard stat(root + "/" + child, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                files += try listFiles(root, child)
            } else if (info.st_mode & S_IFMT) == S_IFREG {
                files.append(child)
            }
        }
        return files.sorted()
    }

    /// A file's bytes in a buffer of exactly their size: assets are held for
    /// the life of the process, and a buffer grown by appending would keep
    /// its slack (up to as much again as the file) for as long.
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while count < size {
                let n = Glibc.read(fd, buffer.baseAddress! + count, size - count)
                if n <= 0 {
                    failed = n < 0
                    break
                }
                count += n
            }
        }
        // A file that shrank while read is served as it was read; one that
        // grew is taken up to its size at the stat, like a snapshot.
        return failed ? nil : bytes
    }

    static func hexDigest(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBytes { raw in
            _ = SHA256(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &digest)
        }
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self)
    }
}

/// Content types by file extension, for what Kith itself ships.
public enum MediaType {
    public static func forFilename(_ name: String) -> String {
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "json": return "application/json"
        case "webmanifest": return "application/manifest+json"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "ico": return "image/x-icon"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        case "txt": return "text/plain; charset=utf-8"
        case "html": return "text/html; charset=utf-8"
        case "mp4": return "video/mp4"
        case "webm": return "video/webm"
        case "mp3": return "audio/mpeg"
        case "m4a": return "audio/mp4"
        case "ogg", "opus": return "audio/ogg"
        case "wav": return "audio/wav"
        default: return "application/octet-stream"
        }
    }

    /// What a browser does with a response of this type: SVG, HTML, text,
    /// JSON and anything unknown may be opened as a page, so they stay
    /// documents; the rest is only ever loaded into one. Scripts count as
    /// subresources: a service worker's script is served by a route of its
    /// own, as a document, because its content policy is the worker's.
    public static func kind(of contentType: String) -> Response.Kind {
        let type = contentType.prefix { $0 != ";" }
        if type == "image/svg+xml" { return .document }
        if type == "text/css" || type == "text/javascript" { return .subresource }
        for family in ["image/", "font/", "audio/", "video/"] where type.hasPrefix(family) { return .subresource }
        return .document
    }
}
