import CCrypto

/// Unpredictable bytes from OpenSSL's CSPRNG, for session tokens, salts and
/// invite codes.
public enum SecureRandom {
    /// `count` random bytes. Stops the process if OpenSSL cannot produce them:
    /// a server that carried on without randomness would hand out guessable
    /// session tokens, which is worse than not serving at all.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: count out of range")
        if count == 0 { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard RAND_bytes(buffer.baseAddress, Int32(count)) == 1 else {
                fatalError("RAND_bytes failed: the system cannot supply secure random bytes")
            }
            initialized = count
        }
    }

    /// A random token of `bytes` bytes as base64url without padding. The default,
    /// 32 bytes (256 bits), is what session and one-time-link tokens use; it
    /// encodes to 43 characters.
    public static func token(bytes: Int = 32) -> String {
        Base64URL.encode(Self.bytes(bytes))
    }

    /// A uniformly distributed integer in `0..<upperBound`.
    ///
    /// Taking a random 64-bit value modulo `upperBound` would favour small
    /// results whenever 2^64 is not a multiple of `upperBound`. Instead the
    /// lowest `2^64 mod upperBound` values are rejected and redrawn, so the
    /// values kept span an exact multiple of `upperBound`. (At most half the
    /// range is ever rejected, so the loop ends quickly.)
    public static func uniform(_ upperBound: Int) -> Int {
        precondition(upperBound > 0, "SecureRandom.uniform: upperBound must be positive")
        let bound = UInt64(upperBound)
        // 2^64 mod bound, computed without overflowing: (2^64 - bound) mod bound.
        let rejectBelow = (0 &- bound) % bound
        while true {
            let value = randomUInt64()
            if value >= rejectBelow {
                return Int(value % bound)
            }
        }
    }

    private static func randomUInt64() -> UInt64 {
        var value: UInt64 = 0
        withUnsafeMutableBytes(of: &value) { raw in
            guard RAND_bytes(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(raw.count)) == 1 else {
                fatalError("RAND_bytes failed: the system cannot supply secure random bytes")
            }
        }
        return value
    }
}
