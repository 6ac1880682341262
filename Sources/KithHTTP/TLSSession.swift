import CSSL
import Glibc

/// TLS over one accepted, non-blocking socket: the transport under a
/// connection whose `tls` is set. Used only on the connection's loop thread
/// (an `SSL` is not thread-safe); event streams reach it through the loop.
///
/// The handshake has no phase of its own: `SSL_read` performs it, so a new
/// connection sits in `readingHead` with the header timeout as its deadline
/// until the first request bytes are decrypted. A silent client is swept at
/// that deadline; one that sends garbage fails its first read and is closed.
///
/// Results follow `read`/`send`: bytes moved, 0 for the end (`read`), or -1
/// with `errno` EAGAIN when blocked the expected way. OpenSSL may block the
/// other way (a read that must write, a write that must read);
/// `blockedOtherWay` says so, after clearing the other readiness flag,
/// so the loop waits for that edge without dropping the connection.
final class TLSSession {
    static let blockedOtherWay = -2

    private let ssl: OpaquePointer
    /// Keeps the context (and what its callbacks read) alive as long as the `SSL`.
    private let context: SSLContext
    private let logger: Logger
    private var closed = false
    /// What the handshake agreed on through ALPN; nil before or without it.
    private(set) var alpn: String?
    private var handshakeDone = false

    /// A file's bytes between `pread` and `SSL_write`: `sendfile` cannot
    /// encrypt. Kept until written, since a blocked write must be retried
    /// with the same bytes.
    private var chunk: [UInt8] = []
    private var chunkOrigin: Int64 = -1
    static let chunkBytes = 64 * 1024

    init?(context: SSLContext, fd: Int32, logger: Logger) {
        guard let ssl = SSL_new(context.pointer) else { return nil }
        self.ssl = ssl
        self.context = context
        self.logger = logger
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
    }

    deinit { close() }

    /// Sends close_notify if it can without waiting, then frees the session.
    func close() {
        guard !closed else { return }
        closed = true
        if handshakeDone { _ = SSL_shutdown(ssl) }
        _ = TLSCertificateError.drainOpenSSLErrors()
        SSL_free(ssl)
    }

    /// close_notify before the socket's write side is shut (lingering).
    func shutdownWrite() {
        if handshakeDone && !closed { _ = SSL_shutdown(ssl) }
        _ = TLSCertificateError.drainOpenSSLErrors()
    }

    /// Decrypts as much as fits. Unlike a socket read, a short result does
    /// not mean the socket is drained (one record at a time), so this reads
    /// until OpenSSL would block or `buffer` is full: `readable` is cleared
    /// only once the socket and OpenSSL's own buffer are both empty, and
    /// bytes already decrypted never wait for another epoll edge.
    func read(into buffer: UnsafeMutableRawBufferPointer, _ conn: Connection) -> Int {
        var total = 0
        while total < buffer.count {
            var got = 0
            if SSL_read_ex(ssl, buffer.baseAddress! + total, buffer.count - total, &got) == 1 {
                noteHandshake()
                total += got
                continue
            }
            switch SSL_get_error(ssl, 0) {
            case SSL_ERROR_WANT_READ:
                conn.readable = false
                if SSL_is_init_finished(ssl) == 1 { noteHandshake() }
                return total > 0 ? total : wouldBlock()
            case SSL_ERROR_WANT_WRITE:
                conn.writable = false
                return total > 0 ? total : Self.blockedOtherWay
            case SSL_ERROR_ZERO_RETURN:
                return total
            default:
                failed(during: "read")
                return total
            }
        }
        return total
    }

    /// Encrypts and sends as much of `bytes` as the socket takes.
    func write(_ bytes: UnsafeRawPointer, _ count: Int, _ conn: Connection) -> Int {
        var total = 0
        while total < count {
            var wrote = 0
            if SSL_write_ex(ssl, bytes + total, count - total, &wrote) == 1 {
                total += wrote
                continue
            }
            switch SSL_get_error(ssl, 0) {
            case SSL_ERROR_WANT_WRITE:
                conn.writable = false
                return total > 0 ? total : wouldBlock()
            case SSL_ERROR_WANT_READ:
                conn.readable = false
                return total > 0 ? total : Self.blockedOtherWay
            default:
                failed(during: "write")
                if total > 0 { return total }
                errno = EPIPE
                return -1
            }
        }
        return total
    }

    /// What is left of `output` and then `body`. A small head and body are
    /// joined into one record, as the plain path joins them into one `sendmsg`.
    func sendBuffered(_ conn: Connection) -> Int {
        let outputLeft = conn.output.count - conn.outputOffset
        let bodyLeft = conn.body.count - conn.bodyOffset
        if outputLeft > 0 && bodyLeft > 0 && outputLeft + bodyLeft <= 16 * 1024 {
            var joined = [UInt8]()
            joined.reserveCapacity(outputLeft + bodyLeft)
            joined += conn.output[conn.outputOffset...]
            joined += conn.body[conn.bodyOffset...]
            return joined.withUnsafeBytes { write($0.baseAddress!, $0.count, conn) }
        }
        var sent = 0
        if outputLeft > 0 {
            sent = conn.output.withUnsafeBytes { write($0.baseAddress! + conn.outputOffset, outputLeft, conn) }
            guard sent == outputLeft, bodyLeft > 0 else { return sent }
        }
        let more = conn.body.withUnsafeBytes { write($0.baseAddress! + conn.bodyOffset, bodyLeft, conn) }
        // Blocked on the body after the whole head went out: report the
        // head; the flags already say what to wait for.
        return sent > 0 ? sent + max(more, 0) : more
    }

    /// The TLS stand-in for `sendfile`: the next part of the file, read into
    /// `chunk` and written from there.
    func sendFile(_ file: FileRegion, sent: Int64, _ conn: Connection) -> Int {
        let position = file.offset + sent
        if chunk.isEmpty || position < chunkOrigin || position >= chunkOrigin + Int64(chunk.count) {
            let wanted = Int(min(file.length - sent, Int64(Self.chunkBytes)))
            var got = 0
            chunk = [UInt8](unsafeUninitializedCapacity: wanted) { buffer, count in
                let n = pread(file.descriptor, buffer.baseAddress!, wanted, off_t(position))
                count = max(n, 0)
                got = n
            }
            guard got > 0 else {
                // The file shrank: the promised length cannot be kept.
                dropFileChunk()
                errno = EIO
                return -1
            }
            chunkOrigin = position
        }
        let start = Int(position - chunkOrigin)
        let n = chunk.withUnsafeBytes { write($0.baseAddress! + start, $0.count - start, conn) }
        if n > 0 && sent + Int64(n) == file.length { dropFileChunk() }
        return n
    }

    func dropFileChunk() {
        chunk = []
        chunkOrigin = -1
    }

    private func wouldBlock() -> Int {
        errno = EAGAIN
        return -1
    }

    private func noteHandshake() {
        guard !handshakeDone else { return }
        handshakeDone = true
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        if let data, length > 0 { alpn = String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self) }
    }

    private func failed(during operation: String) {
        let cause = TLSCertificateError.drainOpenSSLErrors()
        if !handshakeDone && !context.hasCertificate {
            logger.log(["level": "warn", "msg": "TLS handshake refused: no certificate is installed yet", "cause": cause])
        }
    }
}
