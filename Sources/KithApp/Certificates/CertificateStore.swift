import Glibc
import KithCrypto

/// `DATA/certs/`: the ACME account key and each certificate with its key,
/// keys readable by the owner only. Every file is written whole to a
/// temporary name and renamed, so a reader sees the old file or the new one.
struct CertificateStore: Sendable {
    let directory: String

    init(dataDirectory: String) { directory = dataDirectory + "/certs" }

    var accountKeyPath: String { directory + "/acme-account.key" }
    /// One certificate for every name, under the names the TLS layer loads
    /// and watches by default (certbot's), so either can renew the other's.
    var chainPath: String { directory + "/fullchain.pem" }
    var keyPath: String { directory + "/privkey.pem" }

    /// The account key, made on first use. Losing it only means a new
    /// account at the CA; certificates stay valid.
    func accountKey() throws -> P256Key {
        if let pem = read(accountKeyPath) { return try P256Key(privateKeyPEM: pem) }
        let key = try P256Key.generate()
        try write(accountKeyPath, try key.privateKeyPEM(), mode: 0o600)
        return key
    }

    /// The stored chain and key, when both are there.
    func certificate() -> (chainPEM: [UInt8], keyPEM: [UInt8])? {
        guard let chain = read(chainPath), let key = read(keyPath) else { return nil }
        return (chain, key)
    }

    /// The key first: a crash between the two renames leaves a new key with
    /// the old chain, which `Certificates.keyMatches` refuses, so the next
    /// check renews instead of installing a mismatched pair.
    func save(chainPEM: [UInt8], keyPEM: [UInt8]) throws {
        try write(keyPath, keyPEM, mode: 0o600)
        try write(chainPath, chainPEM, mode: 0o644)
    }

    private func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = Glibc.read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return bytes.isEmpty ? nil : bytes
    }

    private func write(_ path: String, _ bytes: [UInt8], mode: mode_t) throws {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw StoreError("cannot create \(directory)", errno) }
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw StoreError("cannot write \(temporary)", errno) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                close(fd)
                throw StoreError("cannot write \(temporary)", errno)
            }
            offset += written
        }
        // The mode again: an existing temporary file keeps its old one through O_CREAT.
        fchmod(fd, mode)
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path) == 0 else { throw StoreError("cannot replace \(path)", errno) }
    }

    struct StoreError: Error, CustomStringConvertible {
        let description: String
        init(_ what: String, _ code: Int32) { description = what + ": " + String(cString: strerror(code)) }
    }
}
