import CBrotli
import CZlib

/// A content coding the engine can send (RFC 9110 §8.4.1).
public enum ContentCoding: String, Sendable, CaseIterable {
    case identity
    case gzip
    case br

    /// The suffix that tells one encoding's entity tag from another's: a
    /// cache holding the gzip bytes must not revalidate them as the brotli ones.
    var etagSuffix: String {
        switch self {
        case .identity: ""
        case .gzip: "-gz"
        case .br: "-br"
        }
    }

    /// Puts the coding's suffix inside an entity tag's quotes.
    public func tag(_ etag: String) -> String {
        guard self != .identity, etag.hasSuffix("\"") else { return etag }
        return etag.dropLast() + etagSuffix + "\""
    }
}

/// Compression and decompression of whole bodies with zlib (gzip) and
/// libbrotli. Bodies are small (pages, stylesheets), so one call each.
public enum Compression {
    /// gzip at `level` (1 fastest … 9 smallest), or nil if zlib refused.
    public static func gzip(_ input: [UInt8], level: Int32 = 6) -> [UInt8]? {
        var stream = z_stream()
        // 15 + 16: the largest window, with a gzip wrapper instead of zlib's.
        guard kith_deflate_init2(&stream, level, 15 + 16, 8) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let result: Int32 = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        output.removeLast(Int(stream.avail_out))
        return output
    }

    /// Brotli at `quality` (0 fastest … 11 smallest), or nil if it refused.
    public static func brotli(_ input: [UInt8], quality: Int32 = 4) -> [UInt8]? {
        var size = BrotliEncoderMaxCompressedSize(input.count)
        if size == 0 { size = input.count + 1024 }
        var output = [UInt8](repeating: 0, count: size)
        let ok = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                BrotliEncoderCompress(
                    quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_TEXT, inBuffer.count, inBuffer.baseAddress, &size,
                    outBuffer.baseAddress)
            }
        }
        guard ok == BROTLI_TRUE else { return nil }
        output.removeLast(output.count - size)
        return output
    }

    public static func compress(_ input: [UInt8], _ coding: ContentCoding, level: Int32) -> [UInt8]? {
        switch coding {
        case .identity: input
        case .gzip: gzip(input, level: level)
        case .br: brotli(input, quality: level)
        }
    }

    /// The original bytes of a gzip body, or nil when it is not one or would
    /// grow past `limit` (a small body can claim to unpack to gigabytes).
    public static func gunzip(_ input: [UInt8], limit: Int = 16 << 20) -> [UInt8]? {
        var stream = z_stream()
        guard kith_inflate_init2(&stream, 15 + 16) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return input.withUnsafeBufferPointer { inBuffer -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
            stream.avail_in = uInt(inBuffer.count)
            while true {
                let (result, produced) = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    let result = inflate(&stream, Z_NO_FLUSH)
                    return (result, outBuffer.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return nil }
                if result == Z_STREAM_END { return stream.avail_in == 0 ? output : nil }
                if result != Z_OK || (produced == 0 && stream.avail_in == 0) { return nil }
            }
        }
    }

    /// The original bytes of a brotli body, with the same limit as `gunzip`.
    public static func unbrotli(_ input: [UInt8], limit: Int = 16 << 20) -> [UInt8]? {
        guard let decoder = BrotliDecoderCreateInstance(nil, nil, nil) else { return nil }
        defer { BrotliDecoderDestroyInstance(decoder) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return input.withUnsafeBufferPointer { inBuffer -> [UInt8]? in
            var availableIn = inBuffer.count
            var nextIn = inBuffer.baseAddress
            while true {
                let (result, produced) = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    var availableOut = outBuffer.count
                    var nextOut = outBuffer.baseAddress
                    let result = BrotliDecoderDecompressStream(decoder, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                    return (result, outBuffer.count - availableOut)
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return nil }
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS: return availableIn == 0 ? output : nil
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                default: return nil
                }
            }
        }
    }

    public static func decompress(_ input: [UInt8], _ coding: ContentCoding) -> [UInt8]? {
        switch coding {
        case .identity: input
        case .gzip: gunzip(input)
        case .br: unbrotli(input)
        }
    }

    /// Whether a body of this type shrinks when compressed: text does,
    /// images, audio, video and fonts already are.
    /// Asked of every page a worker sends, so it reads the bytes in place:
    /// splitting and lowercasing the header cost more than the rest of the
    /// decision.
    public static func isCompressible(contentType: String) -> Bool {
        var text = contentType
        return text.withUTF8 { all in
            var end = all.firstIndex(of: UInt8(ascii: ";")) ?? all.count
            var start = 0
            while start < end, all[start] == 0x20 || all[start] == 0x09 { start += 1 }
            while end > start, all[end - 1] == 0x20 || all[end - 1] == 0x09 { end -= 1 }
            let type = UnsafeBufferPointer(rebasing: all[start..<end])
            return hasPrefix(type, "text/") || equals(type, "application/json") || hasSuffix(type, "+json")
                || equals(type, "application/javascript") || equals(type, "image/svg+xml") || hasSuffix(type, "+xml")
        }
    }

    /// ASCII case-insensitive comparisons against lowercase literals.
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, _ lowercase: StaticString) -> Bool {
        let count = lowercase.utf8CodeUnitCount
        guard offset >= 0, offset + count <= bytes.count else { return false }
        let expected = lowercase.utf8Start
        for i in 0..<count {
            let c = bytes[offset + i]
            if (c >= 65 && c <= 90 ? c | 0x20 : c) != expected[i] { return false }
        }
        return true
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        bytes.count == lowercase.utf8CodeUnitCount && matches(bytes, at: 0, lowercase)
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        matches(bytes, at: 0, lowercase)
    }

    private static func hasSuffix(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        matches(bytes, at: bytes.count - lowercase.utf8CodeUnitCount, lowercase)
    }
}

/// `Accept-Encoding` (RFC 9110 §12.5.3): which of the codings on offer the
/// client takes best. The highest q-value wins; on a tie the server's order
/// decides (brotli is smaller than gzip). `q=0` refuses a coding, `*` stands
/// for every coding not named, and identity is acceptable unless refused.
public enum AcceptEncoding {
    /// The coding to send. `offered` is in the server's order of preference
    /// and need not list identity, which is always available: when the
    /// client refuses everything the body still goes out as identity (RFC
    /// 9110 allows that instead of a 406, and a page is better than none).
    public static func choose(_ header: String?, offered: [ContentCoding]) -> ContentCoding {
        guard var header, !offered.isEmpty else { return .identity }
        let (brotli, gzip, identity, wildcard) = header.withUTF8(qualities)
        var best = ContentCoding.identity
        var bestQ = 0.0
        for coding in offered {
            let q: Double
            switch coding {
            case .br: q = brotli ?? wildcard ?? 0
            case .gzip: q = gzip ?? wildcard ?? 0
            case .identity: continue
            }
            if q > bestQ {
                best = coding
                bestQ = q
            }
        }
        // A client that rates identity above every coding, by name, gets
        // identity; left unnamed, it is only the fallback.
        if bestQ == 0 || (identity ?? 0) > bestQ { return .identity }
        return best
    }

    /// The q-values the header gives brotli, gzip, identity and `*` (nil
    /// when not named). A hand scan over the bytes: this runs for every
    /// asset a browser asks for, and the split-and-lowercase version cost
    /// more than the rest of serving the file.
    private static func qualities(_ b: UnsafeBufferPointer<UInt8>) -> (Double?, Double?, Double?, Double?) {
        var brotli: Double?, gzip: Double?, identity: Double?, wildcard: Double?
        func trim(_ start: Int, _ end: Int) -> (Int, Int) {
            var s = start, e = end
            while s < e && (b[s] == 0x20 || b[s] == 0x09) { s += 1 }
            while e > s && (b[e - 1] == 0x20 || b[e - 1] == 0x09) { e -= 1 }
            return (s, e)
        }
        func named(_ s: Int, _ e: Int, _ lowercase: StaticString) -> Bool {
            guard e - s == lowercase.utf8CodeUnitCount else { return false }
            for k in 0..<(e - s) {
                let byte = b[s + k]
                if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != lowercase.utf8Start[k] { return false }
            }
            return true
        }
        var i = 0
        while i < b.count {
            var end = i
            while end < b.count && b[end] != UInt8(ascii: ",") { end += 1 }
            var nameEnd = i
            while nameEnd < end && b[nameEnd] != UInt8(ascii: ";") { nameEnd += 1 }
            let (ns, ne) = trim(i, nameEnd)
            var q = 1.0
            var p = nameEnd
            while p < end {
                p += 1
                var pe = p
                while pe < end && b[pe] != UInt8(ascii: ";") { pe += 1 }
                let (ps, pEnd) = trim(p, pe)
                if ps < pEnd, b[ps] | 0x20 == UInt8(ascii: "q") {
                    let (es, ee) = trim(ps + 1, pEnd)
                    if es < ee, b[es] == UInt8(ascii: "=") {
                        let (vs, ve) = trim(es + 1, ee)
                        // A q-value that does not parse refuses nothing it should not: treat it as 0.
                        q = qvalue(b, vs, ve).map { min(max($0, 0), 1) } ?? 0
                    }
                }
                p = pe
            }
            if ns < ne {
                if named(ns, ne, "br") {
                    brotli = max(brotli ?? 0, q)
                } else if named(ns, ne, "gzip") || named(ns, ne, "x-gzip") {
                    gzip = max(gzip ?? 0, q)
                } else if named(ns, ne, "identity") {
                    identity = max(identity ?? 0, q)
                } else if named(ns, ne, "*") {
                    wildcard = q
                }
            }
            i = end + 1
        }
        return (brotli, gzip, identity, wildcard)
    }

    /// Digits with at most one point, or nil.
    private static func qvalue(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Double? {
        guard start < end else { return nil }
        var value = 0.0, scale = 1.0, afterPoint = false
        for k in start..<end {
            let byte = b[k]
            if byte == UInt8(ascii: ".") && !afterPoint {
                afterPoint = true
            } else if byte >= 0x30 && byte <= 0x39 {
                if afterPoint {
                    scale /= 10
                    value += Double(byte - 0x30) * scale
                } else {
                    value = value * 10 + Double(byte - 0x30)
                }
            } else {
                return nil
            }
        }
        return value
    }
}

/// Compresses what handlers return, on the worker that ran them, for
/// clients that accept it. Only whole bodies of text over a threshold:
/// never an event stream, a file, a partial or empty answer, or a body that
/// already has an encoding.
public struct ResponseCompressor: Sendable {
    public var minimumBytes: Int
    public var coding: [ContentCoding]
    public var gzipLevel: Int32
    public var brotliQuality: Int32

    /// gzip first: on Kith's 2.3 KB sign-in page (callgrind, release build)
    /// gzip at level 5 cost about 290 instructions per byte saved and brotli
    /// at quality 4 about 410, for 8% fewer bytes; brotli still goes to a
    /// client that takes brotli but not gzip.
    public init(minimumBytes: Int = 1024, coding: [ContentCoding] = [.gzip, .br], gzipLevel: Int32 = 5, brotliQuality: Int32 = 4) {
        self.minimumBytes = minimumBytes
        self.coding = coding
        self.gzipLevel = gzipLevel
        self.brotliQuality = brotliQuality
    }

    public func apply(_ response: Response, to head: RequestHead) -> Response {
        guard case .bytes(let body) = response.body, body.count >= minimumBytes, head.method != .head,
            response.status.code >= 200, response.status != .partialContent, response.status != .noContent,
            response.status != .notModified, response.headers["Content-Encoding"] == nil,
            response.headers["Content-Range"] == nil,
            Compression.isCompressible(contentType: response.headers["Content-Type"] ?? "")
        else { return response }
        var result = response
        result.headers.addVary("Accept-Encoding")
        let chosen = AcceptEncoding.choose(head.headers["Accept-Encoding"], offered: coding)
        guard chosen != .identity,
            let encoded = Compression.compress(body, chosen, level: chosen == .br ? brotliQuality : gzipLevel),
            encoded.count < body.count
        else { return result }
        result.body = .bytes(encoded)
        result.headers.add("Content-Encoding", chosen.rawValue)
        if let etag = response.headers["ETag"] { result.headers.set("ETag", chosen.tag(etag)) }
        return result
    }
}

extension HTTPHeaders {
    /// Adds a name to `Vary`, keeping the names already there.
    public mutating func addVary(_ name: String) {
        guard let existing = self["Vary"] else {
            add("Vary", name)
            return
        }
        let names = existing.split(separator: ",").map { $0.trimmingASCIISpaces().lowercased() }
        if names.contains(name.lowercased()) || names.contains("*") { return }
        set("Vary", existing + ", " + name)
    }
}
