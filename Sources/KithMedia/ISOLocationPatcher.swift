/// Finds location atoms in an MP4/MOV/M4A file and neutralises them where
/// they lie: the atom's type becomes `free` and its payload zeros. Nothing
/// moves, so chunk offsets in the sample tables stay valid and a 500 MB video
/// costs a few hundred small reads instead of a copy.
///
/// Walks atom headers (32-bit sizes, 64-bit "largesize", size 0 = to the end)
/// and descends only into the containers where metadata lives: moov, trak,
/// mdia, minf, udta, meta, ilst, moof, traf. Everything below is found at any
/// depth among those (moov/udta, moov/meta, moov/trak/udta/meta, …):
/// - `©xyz` (QuickTime/Android, ISO 6709 text) and 3GPP `loci`;
/// - iPhone's `com.apple.quicktime.location.*` entries: a `keys` atom names
///   them and the `ilst` item whose type is that key's index holds the value;
/// - XMP, which can carry GPS: QuickTime's `XMP_` atom (where exiftool puts
///   it) and the ISO `uuid` atom with XMP's UUID.
/// Location inside a timed metadata track in `mdat` (GoPro GPMF) is not found.
struct ISOLocationPatcher {
    let file: FileDescriptor

    private static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "udta", "meta", "ilst", "moof", "traf"]
    private static let locationAtoms: Set<String> = ["©xyz", "loci"]
    private static let xmpUUID: [UInt8] = [
        0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
    ]
    private static let maximumDepth = 12
    private static let maximumAtoms = 200_000

    private struct Atom {
        var offset: UInt64
        var headerLength: UInt64
        var size: UInt64
        var type: String
        var payload: UInt64 { offset + headerLength }
        var end: UInt64 { offset + size }
    }

    private final class State {
        var report = StripReport(method: .untouched)
        var atomsSeen = 0
    }

    func run() throws -> StripReport {
        let state = State()
        try walk(from: 0, to: try file.size(), depth: 0, locationKeys: [], state: state)
        if !state.report.removed.isEmpty { state.report.method = .patchedInPlace }
        return state.report
    }

    /// The atoms between `start` and `end`. A trailing run of fewer than 8
    /// zero bytes is allowed (QuickTime ends some lists with a 32-bit zero).
    private func atoms(from start: UInt64, to end: UInt64, state: State) throws -> [Atom] {
        var atoms: [Atom] = []
        var offset = start
        while offset < end {
            let remaining = end - offset
            let header = try file.read(count: Int(min(16, remaining)), at: offset)
            if remaining < 8 {
                guard header.allSatisfy({ $0 == 0 }) else { throw MediaFileError.malformed("atom header cut at \(offset)") }
                break
            }
            state.atomsSeen += 1
            guard state.atomsSeen <= Self.maximumAtoms else { throw MediaFileError.malformed("too many atoms") }
            let size32 = header.u32be(at: 0)!
            let type = fourCCString(Array(header[4..<8]))
            var atom = Atom(offset: offset, headerLength: 8, size: UInt64(size32), type: type)
            if size32 == 1 {
                guard let large = header.u64be(at: 8) else { throw MediaFileError.malformed("64-bit atom header cut at \(offset)") }
                atom.headerLength = 16
                atom.size = large
            } else if size32 == 0 {
                atom.size = remaining
            }
            guard atom.size >= atom.headerLength, atom.size <= remaining else {
                throw MediaFileError.malformed("atom '\(type)' at \(offset) has size \(atom.size), \(remaining) bytes left")
            }
            atoms.append(atom)
            offset += atom.size
        }
        return atoms
    }

    private func walk(from start: UInt64, to end: UInt64, depth: Int, locationKeys: Set<UInt32>, state: State) throws {
        guard depth <= Self.maximumDepth else { throw MediaFileError.malformed("atoms nested too deeply") }
        for atom in try atoms(from: start, to: end, state: state) {
            if Self.locationAtoms.contains(atom.type) {
                try neutralise(atom, because: "\(atom.type) atom", state: state)
                state.report.removedLocation = true
            } else if atom.type == "XMP_" {
                try neutralise(atom, because: "XMP_ atom", state: state)
            } else if atom.type == "uuid", atom.size >= atom.headerLength + 16,
                      try file.read(count: 16, at: atom.payload) == Self.xmpUUID {
                try neutralise(atom, because: "XMP uuid atom", state: state)
            } else if atom.type == "meta" {
                try walkMeta(atom, depth: depth, state: state)
            } else if !locationKeys.isEmpty, let index = keyIndex(atom.type), locationKeys.contains(index) {
                // An ilst item named by a location key.
                try neutralise(atom, because: "QuickTime location item", state: state)
                state.report.removedLocation = true
            } else if Self.containers.contains(atom.type) {
                try walk(from: atom.payload, to: atom.end, depth: depth + 1, locationKeys: atom.type == "ilst" ? locationKeys : [], state: state)
            }
        }
    }

    /// `meta` is a full box (4 bytes of version and flags before its
    /// children) in ISO files but a plain container in QuickTime; the `hdlr`
    /// child tells which. Its `keys` child is read first so `ilst` items can
    /// be matched to key names.
    private func walkMeta(_ atom: Atom, depth: Int, state: State) throws {
        let peek = try file.read(count: 12, at: atom.payload)
        let childrenStart = peek.has("hdlr", at: 4) ? atom.payload : atom.payload + 4
        guard childrenStart <= atom.end else { throw MediaFileError.malformed("meta atom at \(atom.offset) too small") }
        var locationKeys: Set<UInt32> = []
        for child in try atoms(from: childrenStart, to: atom.end, state: state) where child.type == "keys" {
            guard child.size <= 1 << 20 else { throw MediaFileError.malformed("keys atom too large") }
            let keys = try file.read(count: Int(child.size - child.headerLength), at: child.payload)
            locationKeys.formUnion(try Self.locationKeyIndices(keys))
        }
        // Re-walk as a container; `ilst` children inherit the key indices.
        for child in try atoms(from: childrenStart, to: atom.end, state: state) {
            if child.type == "ilst" {
                try walk(from: child.payload, to: child.end, depth: depth + 2, locationKeys: locationKeys, state: state)
            } else {
                try walk(from: child.offset, to: child.end, depth: depth + 1, locationKeys: [], state: state)
            }
        }
    }

    /// The 1-based indices of `mdta` keys that name a location.
    static func locationKeyIndices(_ keys: [UInt8]) throws -> Set<UInt32> {
        guard let count = keys.u32be(at: 4) else { throw MediaFileError.malformed("keys atom header") }
        var indices: Set<UInt32> = []
        var offset = 8
        var index: UInt32 = 1
        while index <= count {
            guard let size = keys.u32be(at: offset), size >= 8, let name = keys.bytes(offset + 8..<offset + Int(size)) else {
                throw MediaFileError.malformed("keys entry \(index)")
            }
            if name.starts(with: Array("com.apple.quicktime.location".utf8)) { indices.insert(index) }
            offset += Int(size)
            index += 1
        }
        return indices
    }

    private func keyIndex(_ type: String) -> UInt32? {
        let scalars = type.unicodeScalars.map { $0.value }
        guard scalars.count == 4, scalars.allSatisfy({ $0 <= 0xFF }) else { return nil }
        return scalars.reduce(0) { $0 << 8 | $1 }
    }

    /// Renames the atom to `free` and zeros its payload, in 64 KiB writes.
    private func neutralise(_ atom: Atom, because what: String, state: State) throws {
        try file.write(Array("free".utf8), at: atom.offset + 4)
        try file.writeZeros(atom.payload..<atom.end)
        state.report.removed.append("MP4 \(what) at byte \(atom.offset) (\(atom.size) bytes)")
    }
}
