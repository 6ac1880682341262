import Testing
import KithCrypto

@Suite("Digests and comparison")
struct DigestTests {
    @Test("SHA-256 matches the FIPS 180 examples and the empty-input digest")
    func sha256KnownAnswers() {
        #expect(SHA256.hex("abc".utf8) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        )
        #expect(SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hash(Array("abc".utf8)).count == 32)
    }

    @Test("SHA-256 of a non-contiguous collection equals that of the same bytes in an array")
    func sha256OfLazyCollection() {
        let lazy = (0..<1_000).lazy.map { UInt8(truncatingIfNeeded: $0) }
        #expect(SHA256.hash(lazy) == SHA256.hash(Array(lazy)))
    }

    @Test("HMAC-SHA256 matches RFC 4231 test cases 1 and 2")
    func hmacRFC4231() {
        let case1 = HMAC.sha256(key: [UInt8](repeating: 0x0B, count: 20), message: "Hi There".utf8)
        #expect(Hex.encode(case1) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        let case2 = HMAC.sha256(key: "Jefe".utf8, message: "what do ya want for nothing?".utf8)
        #expect(Hex.encode(case2) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("HMAC-SHA256 with an empty key and message is the well-known value, not an error")
    func hmacEmpty() {
        let mac = HMAC.sha256(key: [UInt8](), message: [UInt8]())
        #expect(Hex.encode(mac) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test("constantTimeEquals is true only for identical bytes of the same length")
    func constantTimeComparison() {
        let mac = HMAC.sha256(key: "k".utf8, message: "m".utf8)
        var flippedFirst = mac
        flippedFirst[0] ^= 1
        var flippedLast = mac
        flippedLast[31] ^= 0x80
        #expect(constantTimeEquals(mac, mac))
        #expect(constantTimeEquals([], []))
        #expect(!constantTimeEquals(mac, flippedFirst))
        #expect(!constantTimeEquals(mac, flippedLast))
        #expect(!constantTimeEquals(mac, Array(mac.dropLast())))
        #expect(!constantTimeEquals(Array(mac.dropLast()), mac))
        #expect(!constantTimeEquals(mac, []))
    }

    @Test("a token hash is the lowercase hex SHA-256 of the token's UTF-8")
    func tokenHash() {
        #expect(TokenHash.of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let token = SecureRandom.token()
        let stored = TokenHash.of(token)
        #expect(stored.count == 64)
        #expect(stored == stored.lowercased())
        #expect(!stored.contains(token))
        #expect(TokenHash.of(token) == stored)
    }

    @Test("hex encodes lowercase and decodes either case, refusing odd lengths and non-digits")
    func hex() {
        #expect(Hex.encode([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
        #expect(Hex.decode("000FA5ff") == [0x00, 0x0F, 0xA5, 0xFF])
        #expect(Hex.decode("") == [])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.decode("0x12") == nil)
    }
}
