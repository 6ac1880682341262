import CArgon2
import Glibc
import Synchronization
import Testing
@testable import KithCrypto
import KithTestSupport

/// Cheap parameters for tests that are not about the cost itself.
private let cheap = PasswordHasher.Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

@Suite("PasswordHasher")
struct PasswordHasherTests {
    @Test("a default hash is Argon2id v19 with OWASP's parameters, a 16-byte salt and a 32-byte hash")
    func defaultEncoding() throws {
        let hasher = PasswordHasher()
        #expect(hasher.parameters == .owaspMinimum)
        let encoded = try hasher.hash(password: "correct horse battery staple")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        let fields = encoded.split(separator: "$")
        #expect(fields.count == 5)
        #expect(fields[3].count == 22)  // 16 bytes, unpadded base64
        #expect(fields[4].count == 43)  // 32 bytes
    }

    @Test("the right password verifies; a wrong one, a prefix and a longer one do not")
    func verifyRightAndWrong() throws {
        let hasher = PasswordHasher()
        let encoded = try hasher.hash(password: "correct horse battery staple")
        #expect(try hasher.verify(password: "correct horse battery staple", encoded: encoded))
        #expect(try !hasher.verify(password: "correct horse battery stapl", encoded: encoded))
        #expect(try !hasher.verify(password: "correct horse battery staple ", encoded: encoded))
        #expect(try !hasher.verify(password: "Correct horse battery staple", encoded: encoded))
        #expect(try !hasher.verify(password: "", encoded: encoded))
    }

    @Test("two hashes of the same password differ, because each has its own salt")
    func freshSalt() throws {
        let hasher = PasswordHasher(parameters: cheap)
        let first = try hasher.hash(password: "same")
        let second = try hasher.hash(password: "same")
        #expect(first != second)
        #expect(try hasher.verify(password: "same", encoded: first))
        #expect(try hasher.verify(password: "same", encoded: second))
    }

    @Test("passwords are their UTF-8 bytes: composed and decomposed accents are different passwords")
    func noNormalisation() throws {
        let hasher = PasswordHasher(parameters: cheap)
        let composed = "p\u{E4}ssw\u{F6}rd"
        let decomposed = "pa\u{308}sswo\u{308}rd"
        #expect(composed == decomposed)  // equal as Swift Strings…
        let encoded = try hasher.hash(password: composed)
        #expect(try hasher.verify(password: composed, encoded: encoded))
        #expect(try !hasher.verify(password: decomposed, encoded: encoded))  // …but not as passwords
    }

    @Test("an empty password and one with a NUL byte hash and verify like any other")
    func unusualPasswords() throws {
        let hasher = PasswordHasher(parameters: cheap)
        let empty = try hasher.hash(password: "")
        #expect(try hasher.verify(password: "", encoded: empty))
        let withNUL = try hasher.hash(password: "a\u{0}b")
        #expect(try hasher.verify(password: "a\u{0}b", encoded: withNUL))
        #expect(try !hasher.verify(password: "a", encoded: withNUL))
    }

    @Test("libargon2's own Argon2id test vector (t=2, m=256 KiB, p=1, \"password\", \"somesalt\")")
    func libargon2Vector() throws {
        var output = [UInt8](repeating: 0, count: 32)
        let password = Array("password".utf8)
        let salt = Array("somesalt".utf8)
        let result = argon2id_hash_raw(2, 256, 1, password, password.count, salt, salt.count, &output, 32)
        #expect(result == ARGON2_OK.rawValue)
        #expect(Hex.encode(output) == "9dfeb910e80bad0311fee20f9c0e2b12c17987b4cac90c2ef54d5b3021c68bfe")

        let hasher = PasswordHasher(parameters: .init(memoryKiB: 256, iterations: 2, parallelism: 1))
        let encoded = try hasher.hash(password: "password", salt: salt)
        #expect(encoded == "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4")
        #expect(try hasher.verify(password: "password", encoded: encoded))
    }

    @Test("the default parameters with a fixed salt give the value the argon2 command prints")
    func defaultParametersPinned() throws {
        // printf 'correct horse' | argon2 saltsaltsaltsalt -id -t 2 -k 19456 -p 1 -l 32
        let encoded = try PasswordHasher().hash(password: "correct horse", salt: Array("saltsaltsaltsalt".utf8))
        #expect(
            encoded
                == "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$AdweBLwcflnNX2HVW8i1Mtu7frrn4Ki7h/rYSGuU7Is"
        )
    }

    @Test("the linked libargon2 computes RFC 9106's Argon2id test vector (with secret and associated data)")
    func rfc9106Vector() throws {
        var output = [UInt8](repeating: 0, count: 32)
        var password = [UInt8](repeating: 0x01, count: 32)
        var salt = [UInt8](repeating: 0x02, count: 16)
        var secret = [UInt8](repeating: 0x03, count: 8)
        var associated = [UInt8](repeating: 0x04, count: 12)
        let result = output.withUnsafeMutableBufferPointer { output in
            password.withUnsafeMutableBufferPointer { password in
                salt.withUnsafeMutableBufferPointer { salt in
                    secret.withUnsafeMutableBufferPointer { secret in
                        associated.withUnsafeMutableBufferPointer { associated in
                            var context = argon2_context(
                                out: output.baseAddress, outlen: 32,
                                pwd: password.baseAddress, pwdlen: 32,
                                salt: salt.baseAddress, saltlen: 16,
                                secret: secret.baseAddress, secretlen: 8,
                                ad: associated.baseAddress, adlen: 12,
                                t_cost: 3, m_cost: 32, lanes: 4, threads: 4,
                                version: UInt32(ARGON2_VERSION_13.rawValue),
                                allocate_cbk: nil, free_cbk: nil, flags: 0
                            )
                            return argon2id_ctx(&context)
                        }
                    }
                }
            }
        }
        #expect(result == ARGON2_OK.rawValue)
        #expect(Hex.encode(output) == "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")
    }

    @Test("verify is false, not a crash, for malformed, foreign or absurd encodings", arguments: [
        "",
        "$",
        "not a hash",
        "$argon2id$",
        "$argon2id$v=19$m=256,t=2,p=1$",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4$",
        "argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        // The right password's hash, but labelled Argon2i, version 16, or without a version.
        "$argon2i$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=16$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        // Parameters reordered, signed, zero-padded, missing, zero or beyond the maximum.
        "$argon2id$v=19$t=2,m=256,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=+256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=0256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=256,t=2$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=256,t=0,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=4294967295,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=99999999999999,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=256,t=4000000,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=256,t=2,p=255$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        // Salt or hash damaged: padding, the URL alphabet, a changed character, a
        // non-canonical last character (the same bytes spelled differently), too short.
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ=$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR_uIPnA4rEsF5h7TKyQwu9U1bMCHGi-4",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf66EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/5",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65",
        // Bytes C would stop at, and text that is not ASCII.
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4\u{0}",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNh\u{0}bHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4",
        "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/\u{e9}",
        String(repeating: "$argon2id", count: 1_000),
    ])
    func verifyRejectsGarbage(encoded: String) throws {
        let hasher = PasswordHasher(parameters: .init(memoryKiB: 256, iterations: 2, parallelism: 1))
        #expect(try !hasher.verify(password: "password", encoded: encoded))
    }

    @Test("needsRehash: false for current parameters or stronger, true for weaker, other algorithms and garbage")
    func needsRehash() throws {
        let hasher = PasswordHasher()
        let salt = "$c29tZXNhbHRzb21lc2FsdA$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4"
        #expect(!hasher.needsRehash(encoded: try hasher.hash(password: "x")))
        #expect(!hasher.needsRehash(encoded: "$argon2id$v=19$m=19456,t=2,p=1" + salt))
        #expect(!hasher.needsRehash(encoded: "$argon2id$v=19$m=65536,t=3,p=2" + salt))

        #expect(hasher.needsRehash(encoded: "$argon2id$v=19$m=4096,t=2,p=1" + salt))
        #expect(hasher.needsRehash(encoded: "$argon2id$v=19$m=19456,t=1,p=1" + salt))
        #expect(hasher.needsRehash(encoded: "$argon2i$v=19$m=19456,t=2,p=1" + salt))
        #expect(hasher.needsRehash(encoded: "$argon2d$v=19$m=19456,t=2,p=1" + salt))
        #expect(hasher.needsRehash(encoded: "$argon2id$v=16$m=19456,t=2,p=1" + salt))
        // An 8-byte salt ("somesalt") is below the 16 bytes new hashes get.
        #expect(hasher.needsRehash(encoded: "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4"))
        #expect(hasher.needsRehash(encoded: "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW"))
        #expect(hasher.needsRehash(encoded: ""))
    }

    @Test("by default the gate admits as many hashes as there are CPUs online")
    func defaultGateSize() throws {
        #expect(PasswordHasher().maxConcurrentHashes == max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #expect(PasswordHasher(maxConcurrentHashes: 3).maxConcurrentHashes == 3)
    }

    @Test("eight threads hashing and verifying at once never run more than the gate's two Argon2 computations")
    func gateCapsConcurrency() throws {
        let overlap = OverlapCounter()
        let hasher = PasswordHasher(parameters: cheap, maxConcurrentHashes: 2) {
            overlap.occupy(milliseconds: 20)
        }
        let stored = try hasher.hash(password: "secret")
        let go = Atomic<Bool>(false)
        let threads = (0..<8).map { index in
            TestThread {
                while !go.load(ordering: .acquiring) { sched_yield() }
                switch index % 3 {
                case 0: _ = try? hasher.hash(password: "secret")
                case 1: _ = try? hasher.verify(password: "secret", encoded: stored)
                default: try? hasher.performDummyVerification(password: "nobody")
                }
            }
        }
        go.store(true, ordering: .releasing)
        threads.forEach { $0.join() }
        #expect(overlap.peak <= 2)
        #expect(overlap.peak == 2)  // they did contend: the cap, not luck, kept it at two
        #expect(hasher.peakConcurrentHashes == overlap.peak)
    }

    @Test("a gate of one runs hashes strictly one at a time")
    func gateOfOne() throws {
        let overlap = OverlapCounter()
        let hasher = PasswordHasher(parameters: cheap, maxConcurrentHashes: 1) {
            overlap.occupy(milliseconds: 5)
        }
        let threads = (0..<4).map { _ in TestThread { _ = try? hasher.hash(password: "p") } }
        threads.forEach { $0.join() }
        #expect(overlap.peak == 1)
    }

    @Test("by default four callers per concurrent hash may wait their turn")
    func defaultLine() {
        #expect(PasswordHasher(maxConcurrentHashes: 3).maxWaitingHashes == 12)
        #expect(PasswordHasher(maxConcurrentHashes: 3, maxWaiting: 5).maxWaitingHashes == 5)
    }

    @Test("past the bounded line a hash, a verification and a dummy verification are refused at once, and the line still moves")
    func boundedLine() throws {
        let release = DispatchGate()
        let hasher = PasswordHasher(parameters: cheap, maxConcurrentHashes: 1, maxWaiting: 2) {
            release.wait()
        }
        let stored = try PasswordHasher(parameters: cheap).hash(password: "secret")
        // One caller holds the only permit (parked in the hook); two wait in line.
        let finished = Atomic<Int>(0)
        let threads = (0..<3).map { _ in
            TestThread {
                if (try? hasher.hash(password: "secret")) != nil { finished.add(1, ordering: .relaxed) }
            }
        }
        let deadline = monotonicSeconds() + 10
        while hasher.waitingHashes < 2 && monotonicSeconds() < deadline { usleep(1_000) }
        #expect(hasher.waitingHashes == 2)

        let started = monotonicSeconds()
        #expect(throws: PasswordHasher.Busy.self) { try hasher.hash(password: "secret") }
        #expect(throws: PasswordHasher.Busy.self) { try hasher.verify(password: "secret", encoded: stored) }
        #expect(throws: PasswordHasher.Busy.self) { try hasher.performDummyVerification(password: "nobody") }
        #expect(monotonicSeconds() - started < 1, "refused without waiting")
        #expect(hasher.computations == 1, "nothing refused ever reached Argon2")

        release.open()
        threads.forEach { $0.join() }
        #expect(finished.load(ordering: .relaxed) == 3, "everyone who got in line was served")
        #expect(hasher.computations == 3)
        #expect(try hasher.verify(password: "secret", encoded: stored), "an empty line takes callers again")
    }
}
