/// Base64 with the URL- and cookie-safe alphabet (`-` and `_`) and no padding
/// (RFC 4648 §5), the form tokens travel in.
///
/// Decoding is strict so that each byte string has exactly one accepted
/// spelling: padding, whitespace, characters outside the alphabet, an
/// impossible length, and non-zero unused bits in the last character are all
/// refused.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's value in the alphabet, or 0xFF for bytes outside it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        let length = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: length) { output in
            var out = 0
            var index = 0
            while index + 3 <= input.count {
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output[out] = alphabet[Int(group >> 18 & 63)]
                output[out + 1] = alphabet[Int(group >> 12 & 63)]
                output[out + 2] = alphabet[Int(group >> 6 & 63)]
                output[out + 3] = alphabet[Int(group & 63)]
                out += 4
                index += 3
            }
            switch input.count - index {
            case 1:
                let group = UInt32(input[index]) << 16
                output[out] = alphabet[Int(group >> 18 & 63)]
                output[out + 1] = alphabet[Int(group >> 12 & 63)]
                out += 2
            case 2:
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                output[out] = alphabet[Int(group >> 18 & 63)]
                output[out + 1] = alphabet[Int(group >> 12 & 63)]
                output[out + 2] = alphabet[Int(group >> 6 & 63)]
                out += 3
            default:
                break
            }
            return out
        }
    }

    /// The bytes `text` encodes, or nil if it is not canonical unpadded base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        // A lone trailing character carries only 6 bits: not a whole byte.
        guard input.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bitCount = 0
        for character in input {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bitCount += 6
            if bitCount >= 8 {
                bitCount -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bitCount)))
                accumulator &= (1 << UInt32(bitCount)) - 1
            }
        }
        // Leftover bits must be zero, or two spellings would decode alike.
        guard accumulator == 0 else { return nil }
        return bytes
    }
}
