import Testing
import KithCrypto

@Suite("Base64URL")
struct Base64URLTests {
    @Test("encodes the RFC 4648 examples without padding", arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"),
        ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func rfcExamples(plain: String, encoded: String) {
        #expect(Base64URL.encode(plain.utf8) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("uses - and _ where standard base64 uses + and /")
    func urlAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.encode([0xFF, 0xFF, 0xFE]) == "___-")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
    }

    @Test("round-trips every length from 0 to 100 bytes of random data")
    func roundTrips() {
        for length in 0...100 {
            let data = SecureRandom.bytes(length)
            let text = Base64URL.encode(data)
            #expect(text.count == (length * 4 + 2) / 3)
            #expect(Base64URL.decode(text) == data)
        }
    }

    @Test("decoding refuses what is not canonical unpadded base64url", arguments: [
        "Zg==",  // padding
        "Zg=",
        "Z",  // a lone final character is not a byte
        "Zm9vY",
        "Zm9v+A",  // standard alphabet
        "Zm9v/A",
        "Zm 9v",  // whitespace
        "Zm9v\n",
        "Zh",  // non-zero unused bits: "Zg" is the one spelling of "f"
        "Zm9",
        "Zm9vYmF\u{e9}",  // outside ASCII
        "Zm9v\u{0}",
    ])
    func rejectsInvalid(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
