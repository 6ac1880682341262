import KithCrypto
import Testing

/// RFC 8291 §5 and Appendix A: the worked example, every value base64url.
enum RFC8291Example {
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let senderPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let senderPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let receiverPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let receiverPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let sharedSecret = "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"
    static let body =
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_"
        + "yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
}

func b64(_ text: String) -> [UInt8] {
    guard let bytes = Base64URL.decode(text) else { fatalError("bad base64url in a test: \(text)") }
    return bytes
}

@Suite("Web Push message encryption (RFC 8291, aes128gcm)")
struct WebPushCryptoTests {
    typealias Example = RFC8291Example

    @Test("with the RFC's sender key and salt, the body equals RFC 8291 §5 byte for byte")
    func rfcExampleEncrypts() throws {
        let sender = try P256Key(privateKey: b64(Example.senderPrivate), publicKey: b64(Example.senderPublic))
        let body = try WebPushCrypto.encrypt(
            Array(Example.plaintext.utf8), p256dh: b64(Example.receiverPublic), auth: b64(Example.auth),
            salt: b64(Example.salt), sender: sender)
        #expect(Base64URL.encode(body) == Example.body)
    }

    @Test("the RFC's receiver decrypts the RFC's body; ECDH gives the RFC's shared secret")
    func rfcExampleDecrypts() throws {
        let receiver = try P256Key(privateKey: b64(Example.receiverPrivate), publicKey: b64(Example.receiverPublic))
        let plaintext = try WebPushCrypto.decrypt(b64(Example.body), receiver: receiver, auth: b64(Example.auth))
        #expect(String(decoding: plaintext, as: UTF8.self) == Example.plaintext)
        let sender = try P256Key(publicKey: b64(Example.senderPublic))
        #expect(Base64URL.encode(try receiver.sharedSecret(with: sender)) == Example.sharedSecret)
    }

    @Test("the header is salt, record size 4096, key id length 65 and the sender's public key")
    func headerLayout() throws {
        let receiver = try P256Key.generate()
        let body = try WebPushCrypto.encrypt(Array("hi".utf8), p256dh: receiver.publicKey, auth: SecureRandom.bytes(16))
        #expect(Array(body[16..<21]) == [0x00, 0x00, 0x10, 0x00, 65])
        #expect(body[21] == 0x04)
        #expect(body.count == 16 + 4 + 1 + 65 + 2 + 1 + 16)
    }

    @Test("a fresh key pair round-trips; each message gets its own salt and sender key")
    func roundTrip() throws {
        let receiver = try P256Key.generate()
        let auth = SecureRandom.bytes(16)
        let message = Array(#"{"title":"Idaho","body":"Dad spotted Idaho","url":"/games/1"}"#.utf8)
        let first = try WebPushCrypto.encrypt(message, p256dh: receiver.publicKey, auth: auth)
        let second = try WebPushCrypto.encrypt(message, p256dh: receiver.publicKey, auth: auth)
        #expect(try WebPushCrypto.decrypt(first, receiver: receiver, auth: auth) == message)
        #expect(try WebPushCrypto.decrypt(second, receiver: receiver, auth: auth) == message)
        #expect(first[0..<16] != second[0..<16], "fresh salt")
        #expect(first[21..<86] != second[21..<86], "fresh sender key")
        #expect(try WebPushCrypto.decrypt(
            WebPushCrypto.encrypt([], p256dh: receiver.publicKey, auth: auth), receiver: receiver, auth: auth) == [])
    }

    @Test("the wrong auth secret, the wrong receiver or one altered byte does not decrypt")
    func wrongSecretsFail() throws {
        let receiver = try P256Key(privateKey: b64(Example.receiverPrivate), publicKey: b64(Example.receiverPublic))
        var wrongAuth = b64(Example.auth)
        wrongAuth[0] ^= 1
        #expect(throws: WebPushCryptoError.decryptionFailed) {
            try WebPushCrypto.decrypt(b64(Example.body), receiver: receiver, auth: wrongAuth)
        }
        #expect(throws: WebPushCryptoError.decryptionFailed) {
            try WebPushCrypto.decrypt(b64(Example.body), receiver: try P256Key.generate(), auth: b64(Example.auth))
        }
        var altered = b64(Example.body)
        altered[altered.count - 20] ^= 0x80
        #expect(throws: WebPushCryptoError.decryptionFailed) {
            try WebPushCrypto.decrypt(altered, receiver: receiver, auth: b64(Example.auth))
        }
        #expect(throws: WebPushCryptoError.malformed) {
            try WebPushCrypto.decrypt(Array(b64(Example.body).prefix(90)), receiver: receiver, auth: b64(Example.auth))
        }
    }

    @Test("subscriptions with a point off the curve, a short auth secret or too much text are refused")
    func invalidInputs() throws {
        var offCurve = b64(Example.receiverPublic)
        offCurve[64] ^= 1
        #expect(throws: WebPushCryptoError.invalidKey) {
            try WebPushCrypto.encrypt([1], p256dh: offCurve, auth: b64(Example.auth))
        }
        #expect(throws: WebPushCryptoError.invalidKey) {
            try WebPushCrypto.encrypt([1], p256dh: Array(b64(Example.receiverPublic).prefix(33)), auth: b64(Example.auth))
        }
        #expect(throws: WebPushCryptoError.invalidAuthSecret) {
            try WebPushCrypto.encrypt([1], p256dh: b64(Example.receiverPublic), auth: [1, 2, 3])
        }
        #expect(throws: WebPushCryptoError.plaintextTooLong) {
            try WebPushCrypto.encrypt(
                [UInt8](repeating: 65, count: 3994), p256dh: b64(Example.receiverPublic), auth: b64(Example.auth))
        }
    }

    @Test("a key pair's raw halves load back; mismatched halves are refused")
    func rawKeys() throws {
        let key = try P256Key.generate()
        let raw = try VAPID.rawBytes(of: key)
        #expect(raw.count == 97)
        let loaded = try VAPID.key(rawBytes: raw)
        #expect(loaded.publicKey == key.publicKey)
        #expect(try loaded.privateKeyBytes() == key.privateKeyBytes())
        let other = try P256Key.generate()
        #expect(throws: WebPushCryptoError.invalidKey) {
            try P256Key(privateKey: key.privateKeyBytes(), publicKey: other.publicKey)
        }
    }

    @Test("HKDF-SHA-256 matches RFC 5869 test case 1")
    func hkdf() throws {
        let okm = try HKDF.sha256(
            key: [UInt8](repeating: 0x0B, count: 22), salt: bytes("000102030405060708090a0b0c"),
            info: bytes("f0f1f2f3f4f5f6f7f8f9"), count: 42)
        #expect(Hex.encode(okm) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }
}
