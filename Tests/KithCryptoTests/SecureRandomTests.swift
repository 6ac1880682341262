import Testing
import KithCrypto

@Suite("SecureRandom")
struct SecureRandomTests {
    @Test("bytes returns the count asked for, and two draws differ")
    func bytes() {
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(1).count == 1)
        let a = SecureRandom.bytes(32)
        let b = SecureRandom.bytes(32)
        #expect(a.count == 32)
        #expect(a != b)
    }

    @Test("a session token is 43 base64url characters encoding 32 bytes")
    func tokenShape() {
        let token = SecureRandom.token()
        #expect(token.count == 43)
        #expect(token.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_")
        })
        #expect(Base64URL.decode(token)?.count == 32)
        #expect(SecureRandom.token(bytes: 16).count == 22)
    }

    @Test("a thousand tokens are all distinct")
    func tokensDistinct() {
        let tokens = Set((0..<1_000).map { _ in SecureRandom.token() })
        #expect(tokens.count == 1_000)
    }

    @Test("uniform stays in range and reaches every value of a small range")
    func uniformCoversRange() {
        var seen = Set<Int>()
        for _ in 0..<2_000 {
            let value = SecureRandom.uniform(7)
            #expect((0..<7).contains(value))
            seen.insert(value)
        }
        #expect(seen == Set(0..<7))
    }

    @Test("uniform handles the extremes: a bound of 1 and of Int.max")
    func uniformExtremes() {
        for _ in 0..<100 {
            #expect(SecureRandom.uniform(1) == 0)
            #expect((0..<Int.max).contains(SecureRandom.uniform(Int.max)))
        }
    }

    @Test("uniform over an invite alphabet is roughly flat (no value far from its share)")
    func uniformRoughlyFlat() {
        // 32 symbols, 64,000 draws: each expects 2,000 with a standard deviation
        // near 44, so ±400 is about nine deviations and never fails by chance.
        var counts = [Int](repeating: 0, count: 32)
        for _ in 0..<64_000 { counts[SecureRandom.uniform(32)] += 1 }
        #expect(counts.allSatisfy { (1_600...2_400).contains($0) })
    }
}
