import CCrypto

/// RFC 8292 Voluntary Application Server Identification: the server's P-256
/// key signs a short-lived ES256 JWT naming the push service it talks to, so
/// the push service can tie messages to the key a subscription was made with.
public enum VAPID {
    /// Push services refuse tokens that expire more than 24 hours ahead.
    public static let maximumLifetime: Int64 = 24 * 60 * 60
    /// The raw key file: 32-byte private scalar then the 65-byte public point.
    public static let rawKeyBytes = P256Key.privateKeyBytes + P256Key.publicKeyBytes

    /// The key as stored: private scalar followed by the public point.
    public static func rawBytes(of key: P256Key) throws -> [UInt8] {
        try key.privateKeyBytes() + key.publicKey
    }

    /// A key read back from `rawBytes(of:)`; its halves must belong together.
    public static func key(rawBytes: [UInt8]) throws -> P256Key {
        guard rawBytes.count == rawKeyBytes else { throw WebPushCryptoError.invalidKey }
        return try P256Key(
            privateKey: Array(rawBytes[..<P256Key.privateKeyBytes]), publicKey: Array(rawBytes[P256Key.privateKeyBytes...]))
    }

    /// The origin of a push endpoint (`https://host[:port]`), the token's
    /// audience; nil for anything but an absolute http(s) URL.
    public static func audience(of endpoint: String) -> String? {
        let lowered = endpoint.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let rest = lowered.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host = String(authority)
        if scheme == "https" && host.hasSuffix(":443") { host.removeLast(4) }
        if scheme == "http" && host.hasSuffix(":80") { host.removeLast(3) }
        return "\(scheme)://\(host)"
    }

    /// The signed token: `{"typ":"JWT","alg":"ES256"}` and the claims `aud`,
    /// `exp` (clamped to 24 hours after `now`) and `sub` (a `mailto:` or
    /// https contact).
    public static func token(key: P256Key, audience: String, subject: String, expiresAt: Int64, now: Int64) throws -> String {
        let expiry = min(expiresAt, now + maximumLifetime)
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let claims = "{\"aud\":\(JSONString.quoted(audience)),\"exp\":\(expiry),\"sub\":\(JSONString.quoted(subject))}"
        let signingInput = header + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try ES256.sign(Array(signingInput.utf8), key: key)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// `vapid t=<jwt>, k=<public key>` for a message to `endpoint`, valid for
    /// 12 hours: long enough to reuse, well inside the 24-hour limit.
    public static func authorization(key: P256Key, endpoint: String, subject: String, now: Int64) throws -> String {
        guard let audience = audience(of: endpoint) else { throw WebPushCryptoError.malformed }
        let token = try token(key: key, audience: audience, subject: subject, expiresAt: now + 12 * 60 * 60, now: now)
        return "vapid t=\(token), k=\(Base64URL.encode(key.publicKey))"
    }

    /// The claims JSON of a token whose ES256 signature verifies under
    /// `publicKey`, or nil. Checks the header too; the caller reads `exp`.
    public static func verify(token: String, publicKey: [UInt8]) -> [UInt8]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let header = Base64URL.decode(String(parts[0])),
            header == Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8),
            let claims = Base64URL.decode(String(parts[1])),
            let signature = Base64URL.decode(String(parts[2])),
            let key = try? P256Key(publicKey: publicKey)
        else { return nil }
        let signingInput = Array((parts[0] + "." + parts[1]).utf8)
        return ES256.verify(signature, message: signingInput, key: key) ? claims : nil
    }
}

/// ECDSA P-256 with SHA-256 as JWS writes it (RFC 7518 §3.4): the signature
/// is R || S, 32 bytes each, where libcrypto speaks DER `ECDSA-Sig-Value`.
public enum ES256 {
    public static func sign(_ message: [UInt8], key: P256Key) throws -> [UInt8] {
        guard key.hasPrivateKey else { throw WebPushCryptoError.invalidKey }
        guard let context = EVP_MD_CTX_new() else { throw WebPushCryptoError.library("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pkey) == 1,
            EVP_DigestSign(context, nil, &length, message, message.count) == 1
        else { throw WebPushCryptoError.library("ECDSA signing") }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1,
            let raw = DERSignature.raw(Array(der[..<length]))
        else { throw WebPushCryptoError.library("ECDSA signing") }
        return raw
    }

    public static func verify(_ signature: [UInt8], message: [UInt8], key: P256Key) -> Bool {
        guard signature.count == 64, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let der = DERSignature.der(signature)
        return EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pkey) == 1
            && EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }
}

/// `SEQUENCE { INTEGER r, INTEGER s }` to and from fixed 32-byte halves.
/// Only the encoding changes here; libcrypto does all signature arithmetic.
enum DERSignature {
    static func raw(_ der: [UInt8]) -> [UInt8]? {
        var index = 0
        func length() -> Int? {
            guard index < der.count else { return nil }
            let first = der[index]
            index += 1
            if first < 0x80 { return Int(first) }
            // A P-256 signature is under 128 bytes; only the one-byte long form appears.
            guard first == 0x81, index < der.count else { return nil }
            defer { index += 1 }
            return Int(der[index])
        }
        func integer() -> [UInt8]? {
            guard index < der.count, der[index] == 0x02 else { return nil }
            index += 1
            guard let count = length(), count > 0, index + count <= der.count else { return nil }
            var value = Array(der[index..<index + count])
            index += count
            while value.count > 32, value.first == 0 { value.removeFirst() }
            guard value.count <= 32 else { return nil }
            return [UInt8](repeating: 0, count: 32 - value.count) + value
        }
        guard der.first == 0x30 else { return nil }
        index = 1
        guard let total = length(), index + total == der.count, let r = integer(), let s = integer(), index == der.count
        else { return nil }
        return r + s
    }

    static func der(_ raw: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop { $0 == 0 })
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(raw[0..<32]) + integer(raw[32..<64])
        return [0x30] + (body.count < 0x80 ? [UInt8(body.count)] : [0x81, UInt8(body.count)]) + body
    }
}
