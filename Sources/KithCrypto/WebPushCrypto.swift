import CCrypto

/// What can go wrong building keys or encrypting and decrypting push messages.
/// Messages never carry key material.
public enum WebPushCryptoError: Error, Equatable, CustomStringConvertible {
    /// A public key that is not an uncompressed P-256 point, or a private key
    /// that does not match its public half.
    case invalidKey
    /// The subscription's auth secret is not 16 bytes.
    case invalidAuthSecret
    /// More than a push service promises to carry (RFC 8291 §4: 3993 bytes).
    case plaintextTooLong
    /// A body whose header or record layout is not RFC 8188's.
    case malformed
    /// The tag did not verify: wrong keys, wrong auth secret or altered bytes.
    case decryptionFailed
    /// libcrypto refused an operation it should not refuse.
    case library(String)

    public var description: String {
        switch self {
        case .invalidKey: "invalid P-256 key"
        case .invalidAuthSecret: "the auth secret must be 16 bytes"
        case .plaintextTooLong: "push message too long"
        case .malformed: "malformed aes128gcm body"
        case .decryptionFailed: "push message did not decrypt"
        case .library(let operation): "libcrypto: \(operation) failed"
        }
    }
}

/// A P-256 key, public only or with its private scalar, held by libcrypto.
///
/// `@unchecked Sendable` because it wraps an `EVP_PKEY` pointer: the key is
/// never modified after construction, and OpenSSL 3 allows one key to be used
/// from several threads at once as long as each operation makes its own
/// `EVP_PKEY_CTX` / `EVP_MD_CTX`, which every method here does.
public final class P256Key: @unchecked Sendable {
    let pkey: OpaquePointer
    /// The uncompressed point (0x04 || X || Y), 65 bytes.
    public let publicKey: [UInt8]
    public let hasPrivateKey: Bool

    public static let publicKeyBytes = 65
    public static let privateKeyBytes = 32

    init(pkey: OpaquePointer, hasPrivateKey: Bool) throws {
        self.pkey = pkey
        self.hasPrivateKey = hasPrivateKey
        var buffer = [UInt8](repeating: 0, count: Self.publicKeyBytes)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pkey, "encoded-pub-key", &buffer, buffer.count, &length) == 1,
            length == Self.publicKeyBytes, buffer[0] == 0x04
        else {
            EVP_PKEY_free(pkey)
            throw WebPushCryptoError.library("reading the public key")
        }
        publicKey = buffer
    }

    deinit { EVP_PKEY_free(pkey) }

    /// A fresh key pair from libcrypto's generator.
    public static func generate() throws -> P256Key {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw WebPushCryptoError.library("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &pkey) == 1, let pkey
        else {
            throw WebPushCryptoError.library("generating a P-256 key")
        }
        return try P256Key(pkey: pkey, hasPrivateKey: true)
    }

    /// A public key from its uncompressed encoding; refuses points that are
    /// not on the curve, so a hostile subscription cannot steer ECDH.
    public convenience init(publicKey: [UInt8]) throws {
        guard publicKey.count == Self.publicKeyBytes, publicKey[0] == 0x04 else { throw WebPushCryptoError.invalidKey }
        let parameters = ParameterList()
        parameters.utf8("group", "prime256v1")
        parameters.octets("pub", publicKey)
        let pkey = try Self.fromData(parameters, selection: Selection.publicKey)
        try self.init(pkey: pkey, hasPrivateKey: false)
        guard try check({ EVP_PKEY_public_check($0) }) else { throw WebPushCryptoError.invalidKey }
    }

    /// A key pair from its raw halves: the 32-byte big-endian private scalar
    /// and the 65-byte uncompressed public point. The two must belong together.
    public convenience init(privateKey: [UInt8], publicKey: [UInt8]) throws {
        guard privateKey.count == Self.privateKeyBytes, publicKey.count == Self.publicKeyBytes, publicKey[0] == 0x04
        else { throw WebPushCryptoError.invalidKey }
        let parameters = ParameterList()
        parameters.utf8("group", "prime256v1")
        parameters.octets("pub", publicKey)
        parameters.unsignedInteger("priv", bigEndian: privateKey)
        let pkey = try Self.fromData(parameters, selection: Selection.keyPair)
        try self.init(pkey: pkey, hasPrivateKey: true)
        guard try check({ EVP_PKEY_pairwise_check($0) }) else { throw WebPushCryptoError.invalidKey }
    }

    /// `EVP_PKEY_PUBLIC_KEY` and `EVP_PKEY_KEYPAIR`, which Swift cannot
    /// import: they are macros built from other macros.
    private enum Selection {
        static let publicKey = Int32(OSSL_KEYMGMT_SELECT_ALL_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY)
        static let keyPair = publicKey | Int32(OSSL_KEYMGMT_SELECT_PRIVATE_KEY)
    }

    private static func fromData(_ parameters: ParameterList, selection: Int32) throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw WebPushCryptoError.library("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var pkey: OpaquePointer?
        let status = parameters.withList { list in
            EVP_PKEY_fromdata_init(context) == 1 ? EVP_PKEY_fromdata(context, &pkey, selection, list) : 0
        }
        guard status == 1, let pkey else { throw WebPushCryptoError.invalidKey }
        return pkey
    }

    private func check(_ body: (OpaquePointer) -> Int32) throws -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw WebPushCryptoError.library("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        return body(context) == 1
    }

    /// The private scalar, 32 bytes big-endian, for storing the key.
    public func privateKeyBytes() throws -> [UInt8] {
        guard hasPrivateKey else { throw WebPushCryptoError.invalidKey }
        // OSSL_PARAM integers travel in the host's byte order.
        var native = [UInt8](repeating: 0, count: Self.privateKeyBytes)
        defer { cleanse(&native) }
        let status = native.withUnsafeMutableBytes { buffer in
            var parameters = [
                OSSL_PARAM_construct_BN("priv", buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.count),
                OSSL_PARAM_construct_end(),
            ]
            return EVP_PKEY_get_params(pkey, &parameters)
        }
        guard status == 1 else { throw WebPushCryptoError.library("reading the private key") }
        return ParameterList.swapNative(native)
    }

    /// ECDH: the X coordinate of this private key times `peer`'s point.
    public func sharedSecret(with peer: P256Key) throws -> [UInt8] {
        guard hasPrivateKey else { throw WebPushCryptoError.invalidKey }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pkey, nil) else {
            throw WebPushCryptoError.library("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var secret = [UInt8](repeating: 0, count: 32)
        var length = secret.count
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peer.pkey) == 1,
            EVP_PKEY_derive(context, &secret, &length) == 1, length == 32
        else {
            throw WebPushCryptoError.library("ECDH")
        }
        return secret
    }
}

/// RFC 8291 message encryption for Web Push: ECDH P-256 between a one-off
/// sender key and the subscription's key, mixed with its auth secret through
/// HKDF-SHA-256, then one RFC 8188 `aes128gcm` record.
///
/// The body is `salt(16) | rs(4) | idlen(1) | keyid(65) | ciphertext`, where
/// the key id is the sender's public key and the ciphertext is
/// AES-128-GCM(plaintext || 0x02) with its 16-byte tag.
public enum WebPushCrypto {
    /// The record size announced in the header; one record carries the whole message.
    public static let recordSize: UInt32 = 4096
    /// The most plaintext a push service must accept (RFC 8291 §4).
    public static let maxPlaintextBytes = 3993
    public static let authSecretBytes = 16
    static let saltBytes = 16
    static let tagBytes = 16
    static let headerBytes = 16 + 4 + 1 + P256Key.publicKeyBytes

    /// The encrypted body for a subscription. `salt` and `sender` are fixed
    /// only by tests (RFC 8291 §5); leave them nil so each message gets a
    /// fresh salt and sender key, which RFC 8291 requires.
    public static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8], salt: [UInt8]? = nil, sender: P256Key? = nil
    ) throws -> [UInt8] {
        guard auth.count == authSecretBytes else { throw WebPushCryptoError.invalidAuthSecret }
        guard plaintext.count <= maxPlaintextBytes else { throw WebPushCryptoError.plaintextTooLong }
        let receiver = try P256Key(publicKey: p256dh)
        let sender = try sender ?? P256Key.generate()
        let salt = salt ?? SecureRandom.bytes(saltBytes)
        guard salt.count == saltBytes else { throw WebPushCryptoError.malformed }

        let keys = try contentKeys(
            sharedSecret: try sender.sharedSecret(with: receiver), auth: auth, receiverPublic: receiver.publicKey,
            senderPublic: sender.publicKey, salt: salt)
        let sealed = try AES128GCM.seal(plaintext + [0x02], key: keys.key, nonce: keys.nonce)

        var body = salt
        body += withUnsafeBytes(of: recordSize.bigEndian, Array.init)
        body.append(UInt8(P256Key.publicKeyBytes))
        body += sender.publicKey
        body += sealed
        return body
    }

    /// The plaintext of a body addressed to `receiver` (which holds the
    /// private key) with `auth`: what a browser does, for tests.
    public static func decrypt(_ body: [UInt8], receiver: P256Key, auth: [UInt8]) throws -> [UInt8] {
        guard auth.count == authSecretBytes else { throw WebPushCryptoError.invalidAuthSecret }
        guard body.count >= headerBytes + tagBytes + 1 else { throw WebPushCryptoError.malformed }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard body[20] == UInt8(P256Key.publicKeyBytes) else { throw WebPushCryptoError.malformed }
        let sender = try P256Key(publicKey: Array(body[21..<headerBytes]))
        let record = Array(body[headerBytes...])
        // Web Push sends exactly one record, so it must fit the record size.
        guard recordSize >= UInt32(tagBytes + 1), record.count <= Int(recordSize) else {
            throw WebPushCryptoError.malformed
        }
        let keys = try contentKeys(
            sharedSecret: try receiver.sharedSecret(with: sender), auth: auth, receiverPublic: receiver.publicKey,
            senderPublic: sender.publicKey, salt: salt)
        let padded = try AES128GCM.open(record, key: keys.key, nonce: keys.nonce)
        // Padding is zeros after the delimiter; 0x02 marks the last record.
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }), padded[delimiter] == 0x02 else {
            throw WebPushCryptoError.malformed
        }
        return Array(padded[..<delimiter])
    }

    /// RFC 8291 §3.3–3.4 and RFC 8188 §2.2: IKM from the shared secret and the
    /// auth secret, then the content-encryption key and nonce from the salt.
    static func contentKeys(
        sharedSecret: [UInt8], auth: [UInt8], receiverPublic: [UInt8], senderPublic: [UInt8], salt: [UInt8]
    ) throws -> (key: [UInt8], nonce: [UInt8]) {
        let keyInfo = Array("WebPush: info".utf8) + [0] + receiverPublic + senderPublic
        let ikm = try HKDF.sha256(key: sharedSecret, salt: auth, info: keyInfo, count: 32)
        let key = try HKDF.sha256(key: ikm, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0], count: 16)
        let nonce = try HKDF.sha256(key: ikm, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0], count: 12)
        return (key, nonce)
    }
}

/// HKDF (RFC 5869) through libcrypto's EVP_KDF "HKDF", extract then expand.
public enum HKDF {
    public static func sha256(key: [UInt8], salt: [UInt8], info: [UInt8], count: Int) throws -> [UInt8] {
        guard let kdf = EVP_KDF_fetch(nil, "HKDF", nil) else { throw WebPushCryptoError.library("EVP_KDF_fetch(HKDF)") }
        defer { EVP_KDF_free(kdf) }
        guard let context = EVP_KDF_CTX_new(kdf) else { throw WebPushCryptoError.library("EVP_KDF_CTX_new") }
        defer { EVP_KDF_CTX_free(context) }
        let parameters = ParameterList()
        parameters.utf8("digest", "SHA256")
        parameters.octets("key", key)
        parameters.octets("salt", salt)
        parameters.octets("info", info)
        var output = [UInt8](repeating: 0, count: count)
        let status = parameters.withList { EVP_KDF_derive(context, &output, count, $0) }
        guard status == 1 else { throw WebPushCryptoError.library("HKDF") }
        return output
    }
}

/// AES-128-GCM with a 12-byte nonce, no associated data, the 16-byte tag
/// appended: the one record shape RFC 8188 uses.
enum AES128GCM {
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) throws -> [UInt8] {
        guard key.count == 16, nonce.count == 12 else { throw WebPushCryptoError.library("AES-GCM parameters") }
        guard let context = EVP_CIPHER_CTX_new() else { throw WebPushCryptoError.library("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: plaintext.count + WebPushCrypto.tagBytes)
        var written: Int32 = 0
        var finished: Int32 = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1,
            EVP_EncryptUpdate(context, &output, &written, plaintext, Int32(plaintext.count)) == 1,
            output.withUnsafeMutableBufferPointer({ buffer in
                EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(written), &finished)
            }) == 1,
            Int(written + finished) == plaintext.count,
            output.withUnsafeMutableBufferPointer({ buffer in
                EVP_CIPHER_CTX_ctrl(
                    context, EVP_CTRL_GCM_GET_TAG, Int32(WebPushCrypto.tagBytes), buffer.baseAddress! + plaintext.count)
            }) == 1
        else {
            throw WebPushCryptoError.library("AES-128-GCM encryption")
        }
        return output
    }

    static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8]) throws -> [UInt8] {
        guard key.count == 16, nonce.count == 12 else { throw WebPushCryptoError.library("AES-GCM parameters") }
        guard sealed.count >= WebPushCrypto.tagBytes else { throw WebPushCryptoError.malformed }
        guard let context = EVP_CIPHER_CTX_new() else { throw WebPushCryptoError.library("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let length = sealed.count - WebPushCrypto.tagBytes
        var tag = Array(sealed[length...])
        let ciphertext = Array(sealed[..<length])
        // One spare byte so the buffer has an address even for empty output.
        var output = [UInt8](repeating: 0, count: length + 1)
        var written: Int32 = 0
        var finished: Int32 = 0
        guard EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1,
            EVP_DecryptUpdate(context, &output, &written, ciphertext, Int32(length)) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), &tag) == 1
        else {
            throw WebPushCryptoError.library("AES-128-GCM decryption")
        }
        // The tag is checked here, by libcrypto, in constant time.
        let verified = output.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(written), &finished)
        }
        guard verified == 1 else { throw WebPushCryptoError.decryptionFailed }
        return Array(output[..<Int(written + finished)])
    }
}

/// Owns the C memory an `OSSL_PARAM` list points into. libcrypto keeps the
/// pointers it is given rather than copying, so every key name and value
/// must outlive the call; this holds them and wipes them afterwards (some
/// are private keys). Used by one call on one thread.
final class ParameterList {
    private var parameters: [OSSL_PARAM] = []
    private var allocations: [(UnsafeMutableRawPointer, Int)] = []

    deinit {
        for (pointer, count) in allocations {
            OPENSSL_cleanse(pointer, count)
            free(pointer)
        }
    }

    private func copy(_ bytes: [UInt8], terminated: Bool = false) -> UnsafeMutablePointer<UInt8> {
        let count = bytes.count + (terminated ? 1 : 0)
        let pointer = malloc(max(count, 1))!
        allocations.append((pointer, max(count, 1)))
        let typed = pointer.bindMemory(to: UInt8.self, capacity: max(count, 1))
        for (index, byte) in bytes.enumerated() { typed[index] = byte }
        if terminated { typed[bytes.count] = 0 }
        return typed
    }

    private func name(_ key: String) -> UnsafeMutablePointer<CChar> {
        UnsafeMutableRawPointer(copy(Array(key.utf8), terminated: true)).assumingMemoryBound(to: CChar.self)
    }

    func utf8(_ key: String, _ value: String) {
        let bytes = Array(value.utf8)
        let pointer = UnsafeMutableRawPointer(copy(bytes, terminated: true)).assumingMemoryBound(to: CChar.self)
        parameters.append(OSSL_PARAM_construct_utf8_string(name(key), pointer, bytes.count))
    }

    func octets(_ key: String, _ value: [UInt8]) {
        parameters.append(OSSL_PARAM_construct_octet_string(name(key), copy(value), value.count))
    }

    /// An unsigned integer given big-endian, as keys are written down.
    func unsignedInteger(_ key: String, bigEndian value: [UInt8]) {
        let native = Self.swapNative(value)
        parameters.append(OSSL_PARAM_construct_BN(name(key), copy(native), native.count))
    }

    /// Big-endian to the host's order and back (the same reversal both ways).
    static func swapNative(_ bytes: [UInt8]) -> [UInt8] {
        #if _endian(little)
            return bytes.reversed()
        #else
            return bytes
        #endif
    }

    func withList<R>(_ body: (UnsafeMutablePointer<OSSL_PARAM>) throws -> R) rethrows -> R {
        var list = parameters + [OSSL_PARAM_construct_end()]
        return try list.withUnsafeMutableBufferPointer { try body($0.baseAddress!) }
    }
}

/// Overwrites secret bytes in a way the optimiser may not remove.
func cleanse(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
    }
}
