/// The fields of an Argon2 hash in PHC string form,
/// `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`, read without running
/// Argon2. Salt and hash are standard base64 without padding.
///
/// Parsing first lets the hasher refuse malformed or absurd strings (a stored
/// value asking for terabytes of memory) before libargon2 acts on them, and
/// lets it decide on rehashing without any hashing.
struct EncodedPasswordHash: Equatable {
    var algorithm: String
    var version: Int
    var memoryKiB: Int
    var iterations: Int
    var parallelism: Int
    var saltByteCount: Int
    var hashByteCount: Int

    /// Longer than any hash Kith would store; refuses pathological input early.
    static let maximumLength = 512

    init?(_ encoded: String) {
        guard encoded.utf8.count <= Self.maximumLength else { return nil }
        let fields = encoded.utf8.split(separator: UInt8(ascii: "$"), omittingEmptySubsequences: false)
        // "" before the first "$", then algorithm, version, parameters, salt, hash.
        guard fields.count == 6, fields[0].isEmpty else { return nil }

        let algorithm = fields[1]
        guard !algorithm.isEmpty, algorithm.allSatisfy(Self.isAlgorithmCharacter) else { return nil }
        self.algorithm = String(decoding: algorithm, as: UTF8.self)

        guard let version = Self.value(named: "v", in: fields[2]) else { return nil }
        self.version = version

        let parameters = fields[3].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard parameters.count == 3,
            let memory = Self.value(named: "m", in: parameters[0]),
            let iterations = Self.value(named: "t", in: parameters[1]),
            let parallelism = Self.value(named: "p", in: parameters[2])
        else { return nil }
        self.memoryKiB = memory
        self.iterations = iterations
        self.parallelism = parallelism

        guard let salt = Self.base64ByteCount(fields[4]), let hash = Self.base64ByteCount(fields[5]) else {
            return nil
        }
        self.saltByteCount = salt
        self.hashByteCount = hash
    }

    private static func isAlgorithmCharacter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
    }

    /// The decimal after `name=`, as PHC writes it: digits only, no sign, no
    /// leading zero, within 32 bits (libargon2's parameter type).
    private static func value(named name: Character, in field: Substring.UTF8View) -> Int? {
        let bytes = Array(field)
        guard bytes.count >= 3, bytes.count <= 12, bytes[0] == name.asciiValue, bytes[1] == UInt8(ascii: "=")
        else { return nil }
        let digits = bytes[2...]
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        guard digits.count == 1 || digits.first != UInt8(ascii: "0") else { return nil }
        var value = 0
        for digit in digits {
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value <= Int(UInt32.max) ? value : nil
    }

    /// The number of bytes an unpadded standard-base64 field decodes to, or nil
    /// if it is empty, has a character outside the alphabet, or an impossible
    /// length.
    private static func base64ByteCount(_ field: Substring.UTF8View) -> Int? {
        guard !field.isEmpty, field.count % 4 != 1 else { return nil }
        let valid = field.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "/")
        }
        return valid ? field.count * 3 / 4 : nil
    }
}
