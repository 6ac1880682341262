import Glibc

/// What a handler returns. The engine adds `Content-Length`, `Date`,
/// `Connection` and the configured security headers (those for its `kind`)
/// when it writes it.
public struct Response: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: Body
    /// Fields serialized ahead of time, written after `headers`. For
    /// responses the engine builds once and sends many times — static
    /// assets — so a request does not rebuild them.
    public var prepared = PreparedFields.none
    /// Whether the configured document headers apply (`ServerConfiguration.documentHeaders`).
    public var kind = Kind.document

    public enum Kind: Sendable {
        /// Anything a browser may show as a page or run as a worker: HTML,
        /// SVG, text, a service worker's script. The default.
        case document
        /// Only ever loaded into a page — a stylesheet, a classic script, a
        /// raster image, a font, a sound — so document-only policies do not
        /// apply to it, and a browser ignores them there.
        case subresource
    }

    public enum Body: Sendable {
        case bytes([UInt8])
        /// A region of a file, sent with `sendfile` from the I/O thread.
        case file(FileRegion)
        /// A long-lived response (Server-Sent Events). `start` runs once the
        /// head is queued; it keeps the stream and writes to it from any thread.
        case stream(@Sendable (ResponseStream) -> Void)
        /// A body of known length assembled from bytes and whole files, sent
        /// in order; files go with `sendfile` and are opened only when their
        /// turn comes, so a large download holds one descriptor at a time
        /// and no copy. A file whose size changed by then ends the connection.
        case segments([BodySegment])
    }

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func text(_ text: String, status: HTTPStatus = .ok) -> Response {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        return Response(status: status, headers: headers, body: .bytes(Array(text.utf8)))
    }

    public static func bytes(_ bytes: [UInt8], contentType: String, status: HTTPStatus = .ok) -> Response {
        var headers = HTTPHeaders()
        headers.add("Content-Type", contentType)
        return Response(status: status, headers: headers, body: .bytes(bytes))
    }

    /// Post/redirect/get: after a form post the browser follows with a GET.
    public static func redirect(to location: String, status: HTTPStatus = .seeOther) -> Response {
        var headers = HTTPHeaders()
        headers.add("Location", location)
        return Response(status: status, headers: headers)
    }

    public var bodyLength: Int64? {
        switch body {
        case .bytes(let bytes): Int64(bytes.count)
        case .file(let region): region.length
        case .stream: nil
        case .segments(let parts): parts.reduce(0) { $0 + $1.length }
        }
    }
}

/// One piece of a `.segments` body.
public enum BodySegment: Sendable {
    case bytes([UInt8])
    /// The whole file at `path`, which must be `length` bytes long when sent.
    case file(path: String, length: Int64)

    public var length: Int64 {
        switch self {
        case .bytes(let bytes): Int64(bytes.count)
        case .file(_, let length): length
        }
    }
}

/// An open file and the part of it to send. The descriptor is owned by the
/// region's holder and closed by the engine once the response is written (or abandoned).
public struct FileRegion: Sendable {
    public let descriptor: Int32
    public let offset: Int64
    public let length: Int64

    public init(descriptor: Int32, offset: Int64, length: Int64) {
        self.descriptor = descriptor
        self.offset = offset
        self.length = length
    }
}

extension Response {
    /// Serves a file from disk with validators and single-range support:
    /// 200, 206 with `Content-Range`, 304 for a matching `If-None-Match`, or 416.
    /// Missing or unreadable files are a 404: the caller already decided the
    /// person may see it, so the only failure left is that it is gone.
    public static func file(
        at path: String, contentType: String, request: RequestHead, cacheControl: String = "private, no-cache"
    ) throws(HTTPError) -> Response {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .notFound() }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .notFound()
        }
        let size = Int64(info.st_size)
        let etag = "\"\(String(UInt64(info.st_mtim.tv_sec), radix: 36))-\(String(UInt64(size), radix: 36))\""
        var headers = HTTPHeaders()
        headers.add("Content-Type", contentType)
        headers.add("ETag", etag)
        headers.add("Cache-Control", cacheControl)
        headers.add("Accept-Ranges", "bytes")

        if let candidates = request.headers["If-None-Match"], ETag.matches(candidates, etag) {
            close(fd)
            return Response(status: .notModified, headers: headers)
        }
        // If-Range with a stale validator means "send me everything".
        let ifRangeHolds = request.headers["If-Range"].map { $0 == etag } ?? true
        let range = ByteRange(header: ifRangeHolds ? request.headers["Range"] : nil, length: size)
        if let contentRange = range.contentRange(length: size) { headers.add("Content-Range", contentRange) }
        switch range {
        case .full:
            return Response(status: .ok, headers: headers, body: .file(FileRegion(descriptor: fd, offset: 0, length: size)))
        case .partial(let bytes):
            let region = FileRegion(descriptor: fd, offset: bytes.lowerBound, length: bytes.upperBound - bytes.lowerBound + 1)
            return Response(status: .partialContent, headers: headers, body: .file(region))
        case .unsatisfiable:
            close(fd)
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
    }
}

/// Entity-tag comparison for `If-None-Match` (weak comparison, RFC 9110 §13.1.2).
public enum ETag {
    public static func matches(_ header: String, _ etag: String) -> Bool {
        if header.trimmingASCIISpaces() == "*" { return true }
        let strip: (Substring) -> Substring = { tag in
            let trimmed = tag.trimmingASCIISpaces()
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
        }
        let target = strip(Substring(etag))
        return header.split(separator: ",").contains { strip($0) == target }
    }
}

extension StringProtocol {
    func trimmingASCIISpaces() -> Substring {
        var s = Substring(self)
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return s
    }
}
