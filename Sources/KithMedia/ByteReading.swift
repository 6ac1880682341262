// Bounds-checked reads over untrusted bytes. Every parser in this module
// reads through these so a truncated or hostile file yields `nil` (and so a
// refusal) instead of a trap.

extension Array where Element == UInt8 {
    func u8(at offset: Int) -> UInt8? {
        offset >= 0 && offset < count ? self[offset] : nil
    }

    func u16be(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    func u16le(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return UInt16(self[offset + 1]) << 8 | UInt16(self[offset])
    }

    func u32be(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        var value: UInt32 = 0
        for index in offset..<offset + 4 { value = value << 8 | UInt32(self[index]) }
        return value
    }

    func u32le(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        var value: UInt32 = 0
        for index in (offset..<offset + 4).reversed() { value = value << 8 | UInt32(self[index]) }
        return value
    }

    func u64be(at offset: Int) -> UInt64? {
        guard offset >= 0, offset <= count - 8 else { return nil }
        var value: UInt64 = 0
        for index in offset..<offset + 8 { value = value << 8 | UInt64(self[index]) }
        return value
    }

    /// Whether `pattern` sits at `offset` (false when it would run past the end).
    func has(_ pattern: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, pattern.count <= count - offset else { return false }
        for (index, byte) in pattern.enumerated() where self[offset + index] != byte { return false }
        return true
    }

    func has(_ ascii: String, at offset: Int) -> Bool {
        has(Array(ascii.utf8), at: offset)
    }

    /// An EBML element ID, 1 to 4 bytes, its length marker kept (as the
    /// Matroska spec writes IDs: Segment is 0x18538067).
    func ebmlID(at offset: Int) -> (id: UInt32, length: Int)? {
        guard let first = u8(at: offset), first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard length <= 4, let raw = bytes(offset..<offset + length) else { return nil }
        return (raw.reduce(0) { $0 << 8 | UInt32($1) }, length)
    }

    /// An EBML data size, 1 to 8 bytes, its length marker removed. `size` is
    /// nil when every value bit is set: "unknown", which live muxers
    /// (MediaRecorder) write for the Segment and each Cluster.
    func ebmlSize(at offset: Int) -> (size: UInt64?, length: Int)? {
        guard let first = u8(at: offset), first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard let raw = bytes(offset..<offset + length) else { return nil }
        let valueBits = UInt64(7 * length)
        let value = raw.dropFirst().reduce(UInt64(first) & (0xFF >> UInt64(length))) { $0 << 8 | UInt64($1) }
        return (value == (1 << valueBits) - 1 ? nil : value, length)
    }

    /// The bytes in `range`, or nil when any of it lies outside the array.
    func bytes(_ range: Range<Int>) -> [UInt8]? {
        guard range.lowerBound >= 0, range.upperBound <= count else { return nil }
        return Array(self[range])
    }
}

/// Little helpers for building binary records (zip headers, TIFF, chunk sizes).
extension Array where Element == UInt8 {
    mutating func appendLE16(_ value: UInt16) {
        append(UInt8(value & 0xFF)); append(UInt8(value >> 8))
    }

    mutating func appendLE32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func appendLE64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func appendBE16(_ value: UInt16) {
        append(UInt8(value >> 8)); append(UInt8(value & 0xFF))
    }

    mutating func appendBE32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}

/// A four-character code as text for reports. Bytes map as Latin-1, so the
/// QuickTime 0xA9 prefix prints as "©" ("©xyz").
func fourCCString(_ bytes: [UInt8]) -> String {
    String(bytes.map { Character(Unicode.Scalar($0)) })
}
