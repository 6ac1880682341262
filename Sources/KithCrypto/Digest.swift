import CCrypto
import Glibc

/// SHA-256 through OpenSSL's EVP interface.
public enum SHA256 {
    /// The digest length in bytes.
    public static let byteCount = 32

    /// The SHA-256 digest of `bytes` (pass `string.utf8` to hash text).
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        withContiguousBytes(bytes) { input in
            [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
                var length: UInt32 = 0
                guard EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil) == 1,
                    Int(length) == byteCount
                else {
                    fatalError("EVP_Digest(SHA-256) failed")
                }
                initialized = byteCount
            }
        }
    }

    /// The SHA-256 digest of `bytes` as lowercase hexadecimal.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        Hex.encode(hash(bytes))
    }

    /// The digest of a whole file, read in chunks (an upload may be hundreds
    /// of megabytes), as lowercase hexadecimal; nil when it cannot be read.
    public static func hexOfFile(at path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            guard buffer.withUnsafeBytes({ EVP_DigestUpdate(context, $0.baseAddress, count) }) == 1 else { return nil }
        }
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, Int(length) == byteCount else { return nil }
        return Hex.encode(digest)
    }
}

/// HMAC through OpenSSL's one-shot `HMAC()`.
public enum HMAC {
    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    public static func sha256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        withContiguousBytes(key) { key in
            withContiguousBytes(message) { message in
                [UInt8](unsafeUninitializedCapacity: SHA256.byteCount) { output, initialized in
                    var length: UInt32 = 0
                    guard key.count <= Int(Int32.max),
                        CCrypto.HMAC(
                            EVP_sha256(), key.baseAddress, Int32(key.count),
                            message.baseAddress, message.count, output.baseAddress, &length
                        ) != nil,
                        Int(length) == SHA256.byteCount
                    else {
                        fatalError("HMAC(SHA-256) failed")
                    }
                    initialized = SHA256.byteCount
                }
            }
        }
    }
}

/// Whether `a` and `b` hold the same bytes, in time that depends only on their
/// length, never on where they first differ. Use it for every comparison of a
/// secret (MAC, token hash) with a value an attacker supplies. Inputs of
/// different lengths are unequal at once; only the lengths are revealed, which
/// for digests of a fixed size reveals nothing.
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { a in
        b.withUnsafeBytes { b in
            CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0
        }
    }
}

/// Calls `body` with the bytes of `bytes` in contiguous memory, copying only
/// when the collection is not already contiguous. An empty input gets a valid
/// pointer too: OpenSSL treats a null key specially, not as an empty one.
func withContiguousBytes<R>(
    _ bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R
) -> R {
    if bytes.isEmpty {
        let placeholder: [UInt8] = [0]
        return placeholder.withUnsafeBufferPointer { body(UnsafeBufferPointer(start: $0.baseAddress, count: 0)) }
    }
    if let result = bytes.withContiguousStorageIfAvailable(body) {
        return result
    }
    return Array(bytes).withUnsafeBufferPointer(body)
}
