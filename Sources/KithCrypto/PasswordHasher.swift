import CArgon2

/// Argon2id password hashing through libargon2, with the result in PHC string
/// form: `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`.
///
/// Each hash takes `memoryKiB` of memory and milliseconds of one core (some
/// 15–30 ms with the defaults), on purpose. Its methods block: call them from the server's worker threads,
/// never from an `async` context, where they would stall Swift's cooperative
/// pool (one thread per core) and with it every task in the process.
///
/// A gate lets at most `maxConcurrentHashes` hashes (or verifications) run at
/// once; up to `maxWaitingHashes` further callers wait their turn, and past
/// that a call throws `Busy` at once. A burst of sign-ins then costs
/// `maxConcurrentHashes × memoryKiB` of memory, not one allocation per request,
/// and a flood of them holds at most `maxConcurrentHashes + maxWaitingHashes`
/// of the caller's threads instead of all of them.
///
/// Passwords are hashed as the bytes of their UTF-8, unnormalised: what the
/// browser sent is what is compared.
public final class PasswordHasher: Sendable {
    public struct Parameters: Sendable, Equatable, CustomStringConvertible {
        /// Memory per hash in KiB (Argon2's `m`).
        public var memoryKiB: Int
        /// Passes over that memory (Argon2's `t`).
        public var iterations: Int
        /// Lanes (Argon2's `p`); libargon2 runs one thread per lane.
        public var parallelism: Int

        public init(memoryKiB: Int, iterations: Int, parallelism: Int) {
            self.memoryKiB = memoryKiB
            self.iterations = iterations
            self.parallelism = parallelism
        }

        /// OWASP's minimum recommendation for Argon2id: 19 MiB, 2 passes, 1 lane.
        public static let owaspMinimum = Parameters(memoryKiB: 19_456, iterations: 2, parallelism: 1)

        /// The largest values this hasher will hash with or verify against. A
        /// stored hash asking for more is treated as corrupt rather than
        /// allowed to take a gigabyte or a minute of the server.
        public static let maximum = Parameters(memoryKiB: 1_048_576, iterations: 64, parallelism: 16)

        /// Whether libargon2 accepts these values and they are within `maximum`.
        public var isValid: Bool {
            (1...Self.maximum.parallelism).contains(parallelism)
                && (1...Self.maximum.iterations).contains(iterations)
                // Argon2 needs at least 8 KiB per lane.
                && (8 * parallelism...Self.maximum.memoryKiB).contains(memoryKiB)
        }

        public var description: String { "m=\(memoryKiB),t=\(iterations),p=\(parallelism)" }
    }

    /// Random salt per hash: 16 bytes, as RFC 9106 recommends.
    public static let saltByteCount = 16
    /// Length of the hash itself: 32 bytes.
    public static let hashByteCount = 32

    // libargon2's ARGON2_MIN_SALT_LENGTH and ARGON2_MIN_OUTLEN, restated
    // because Swift cannot import macros written with UINT32_C.
    private static let argon2MinimumSaltByteCount = 8
    private static let argon2MinimumHashByteCount = 4

    /// Thrown, without waiting, when `maxWaitingHashes` callers already wait
    /// for the gate: the server is saturated, and waiting longer would only
    /// tie up one more thread.
    public struct Busy: Error, Sendable, CustomStringConvertible {
        public let waiting: Int
        public var description: String { "password hashing is saturated: \(waiting) callers already waiting" }
    }

    public let parameters: Parameters
    private let gate: ConcurrencyGate
    /// Runs inside the gate just before each Argon2 computation; tests use it
    /// to observe how many computations overlap.
    private let insideGate: (@Sendable () -> Void)?

    /// - Parameters:
    ///   - parameters: the cost of new hashes; stored hashes with lower costs
    ///     still verify, and `needsRehash` reports them.
    ///   - maxConcurrentHashes: how many hashes may run at once; by default the
    ///     number of CPUs online, since more than that would only share the
    ///     cores and hold more memory.
    ///   - maxWaiting: how many callers may wait for a turn; by default four
    ///     per concurrent hash, some 100 ms of queue at OWASP's costs.
    public convenience init(parameters: Parameters = .owaspMinimum, maxConcurrentHashes: Int? = nil, maxWaiting: Int? = nil) {
        self.init(parameters: parameters, maxConcurrentHashes: maxConcurrentHashes, maxWaiting: maxWaiting, insideGate: nil)
    }

    init(parameters: Parameters, maxConcurrentHashes: Int?, maxWaiting: Int? = nil, insideGate: (@Sendable () -> Void)?) {
        precondition(parameters.isValid, "PasswordHasher: invalid Argon2 parameters \(parameters)")
        self.parameters = parameters
        let capacity = maxConcurrentHashes ?? Self.defaultConcurrentHashes
        self.gate = ConcurrencyGate(capacity: capacity, maxWaiting: maxWaiting ?? Self.defaultMaxWaiting(concurrentHashes: capacity))
        self.insideGate = insideGate
    }

    /// The gate's size when none is given: the CPUs online.
    public static var defaultConcurrentHashes: Int { onlineProcessorCount() }

    /// The line's length when none is given: four callers per running hash.
    public static func defaultMaxWaiting(concurrentHashes: Int) -> Int { 4 * concurrentHashes }

    /// How many hashes or verifications may run at the same time.
    public var maxConcurrentHashes: Int { gate.capacity }

    /// How many callers may wait for a turn before `Busy` is thrown.
    public var maxWaitingHashes: Int { gate.maxWaiting }

    /// The most that have run at the same time so far.
    public var peakConcurrentHashes: Int { gate.peakInUse }

    /// Callers waiting for a turn right now.
    public var waitingHashes: Int { gate.waitingNow }

    /// Argon2 computations started so far (hashes, verifications and dummy
    /// verifications alike): a figure for tests and diagnostics.
    public var computations: Int { gate.permitsGranted }

    /// A new Argon2id hash of `password` with a fresh random salt, in PHC form.
    ///
    /// Stops the process if libargon2 fails, which with parameters validated
    /// at initialisation means only that a hash's memory could not be
    /// allocated. Throws `Busy` when the line for the gate is full.
    public func hash(password: String) throws(Busy) -> String {
        try hash(password: password, salt: SecureRandom.bytes(Self.saltByteCount))
    }

    /// The PHC string for `password` with a given salt: fixed-salt known-answer
    /// tests pin the encoding through this.
    func hash(password: String, salt: [UInt8]) throws(Busy) -> String {
        let p = parameters
        let length = argon2_encodedlen(
            UInt32(p.iterations), UInt32(p.memoryKiB), UInt32(p.parallelism),
            UInt32(salt.count), UInt32(Self.hashByteCount), Argon2_id
        )
        var encoded = [CChar](repeating: 0, count: length)
        var password = password
        let result = password.withUTF8 { passwordBytes in
            salt.withUnsafeBytes { saltBytes in
                gate.withPermit {
                    insideGate?()
                    return argon2id_hash_encoded(
                        UInt32(p.iterations), UInt32(p.memoryKiB), UInt32(p.parallelism),
                        passwordBytes.baseAddress, passwordBytes.count,
                        saltBytes.baseAddress, saltBytes.count,
                        Self.hashByteCount, &encoded, length
                    )
                }
            }
        }
        guard let result else { throw busy() }
        guard result == ARGON2_OK.rawValue else {
            fatalError("argon2id_hash_encoded failed: \(String(cString: argon2_error_message(result)))")
        }
        return encoded.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Whether `password` matches `encoded`, a stored Argon2id PHC string.
    /// False, never a crash, for anything malformed, for other algorithms, and
    /// for costs beyond `Parameters.maximum`. The final comparison inside
    /// libargon2 takes constant time. Throws `Busy` when the line for the gate is full.
    public func verify(password: String, encoded: String) throws(Busy) -> Bool {
        guard let stored = EncodedPasswordHash(encoded),
            stored.algorithm == "argon2id",
            stored.version == Int(ARGON2_VERSION_13.rawValue),
            Parameters(memoryKiB: stored.memoryKiB, iterations: stored.iterations, parallelism: stored.parallelism)
                .isValid,
            stored.saltByteCount >= Self.argon2MinimumSaltByteCount,
            stored.hashByteCount >= Self.argon2MinimumHashByteCount
        else { return false }

        var password = password
        let result = password.withUTF8 { passwordBytes in
            encoded.withCString { encodedString in
                gate.withPermit {
                    insideGate?()
                    return argon2id_verify(encodedString, passwordBytes.baseAddress, passwordBytes.count)
                }
            }
        }
        guard let result else { throw busy() }
        return result == ARGON2_OK.rawValue
    }

    /// Spends the time and memory of one `verify` and discards the result.
    /// Call it when a sign-in names no existing account (or one without a
    /// password), so the answer takes as long as a wrong password for a real
    /// account and response times do not reveal which usernames exist.
    public func performDummyVerification(password: String) throws(Busy) {
        let p = parameters
        let salt = [UInt8](repeating: 0, count: Self.saltByteCount)
        var output = [UInt8](repeating: 0, count: Self.hashByteCount)
        var password = password
        let ran = password.withUTF8 { passwordBytes in
            gate.withPermit {
                insideGate?()
                return argon2id_hash_raw(
                    UInt32(p.iterations), UInt32(p.memoryKiB), UInt32(p.parallelism),
                    passwordBytes.baseAddress, passwordBytes.count,
                    salt, salt.count, &output, Self.hashByteCount
                )
            }
        }
        if ran == nil { throw busy() }
    }

    private func busy() -> Busy { Busy(waiting: gate.maxWaiting) }

    /// Whether a stored hash should be replaced by a fresh one at the next
    /// successful sign-in: when it is not Argon2id version 19, when any of its
    /// costs or its salt or hash length is below this hasher's, or when it
    /// cannot be read at all.
    public func needsRehash(encoded: String) -> Bool {
        guard let stored = EncodedPasswordHash(encoded) else { return true }
        return stored.algorithm != "argon2id"
            || stored.version != Int(ARGON2_VERSION_13.rawValue)
            || stored.memoryKiB < parameters.memoryKiB
            || stored.iterations < parameters.iterations
            || stored.parallelism < parameters.parallelism
            || stored.saltByteCount < Self.saltByteCount
            || stored.hashByteCount < Self.hashByteCount
    }
}
