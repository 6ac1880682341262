import Glibc

/// The IANA time zone names this server can use, from the `tzdata` package.
///
/// The list comes from `tzdata.zi`, the compact source that ships beside the
/// compiled zone files: every `Z name …` line is a zone and every
/// `L target name` line a link (an older or alternative spelling such as
/// `UTC` or `Asia/Calcutta`). Links are kept because browsers still report
/// some of them and people recognise them. A name is listed only when its
/// compiled file is present, since that file is what turns a UTC instant into
/// local time; newer Debian releases move the old links to `tzdata-legacy`,
/// and this keeps the list honest there too.
///
/// Read once, on first use, from the files themselves rather than from
/// Foundation's list, so that the names offered are exactly the zones this
/// machine can convert.
enum TimeZones {
    /// Where Debian (and most Linux systems) keep the compiled zones.
    static let directory = "/usr/share/zoneinfo"

    /// Every usable zone and link name, sorted by byte order.
    static let all: [String] = catalogue.names

    /// True for a listed name whose compiled file is still on disk. Names
    /// arrive from forms, so `..` and absolute paths are refused before the
    /// name gets anywhere near a file system call.
    static func isValid(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains(".."), catalogue.lookup.contains(name) else {
            return false
        }
        return isRegularFile(directory + "/" + name)
    }

    /// The zone for people who have not chosen one (and for pages rendered
    /// without JavaScript to pre-select theirs): the `TZ` environment
    /// variable, else `/etc/timezone`, else the zone `/etc/localtime` links
    /// to, each only if it names a valid zone; otherwise UTC.
    static let serverDefault: String = {
        var candidates: [String] = []
        if let value = getenv("TZ") {
            candidates.append(zoneName(fromSetting: String(cString: value)))
        }
        if let bytes = readFile("/etc/timezone") {
            let firstLine = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).first ?? []
            candidates.append(zoneName(fromSetting: String(decoding: firstLine, as: UTF8.self)))
        }
        if let target = symbolicLinkTarget("/etc/localtime") {
            candidates.append(zoneName(fromSetting: target))
        }
        return candidates.first(where: isValid) ?? "UTC"
    }()

    // MARK: - Reading tzdata

    private struct Catalogue {
        let names: [String]
        let lookup: Set<String>
    }

    private static let catalogue: Catalogue = {
        var found = Set<String>()
        if let source = readFile(directory + "/tzdata.zi") {
            for line in source.split(separator: 0x0A) {
                if let name = declaredName(in: line), isRegularFile(directory + "/" + name) {
                    found.insert(name)
                }
            }
        }
        return Catalogue(names: found.sorted(), lookup: found)
    }()

    /// The name a `Z` (zone) or `L` (link) line declares, or nil for rule
    /// lines, continuation lines and comments. Fields are separated by single
    /// spaces in the compact format; `Factory` is tzdata's placeholder for
    /// "no zone configured", not a place anyone lives.
    private static func declaredName(in line: ArraySlice<UInt8>) -> String? {
        let fields = line.split(separator: 0x20, maxSplits: 3)
        let name: ArraySlice<UInt8>
        switch fields.first {
        case [0x5A]? where fields.count >= 2: name = fields[1]  // "Z name offset …"
        case [0x4C]? where fields.count >= 3: name = fields[2]  // "L target name"
        default: return nil
        }
        let text = String(decoding: name, as: UTF8.self)
        return text == "Factory" ? nil : text
    }

    /// A zone name from a `TZ`-style setting: `:Europe/London`,
    /// `Europe/London`, or a path into the zone directory. POSIX rule strings
    /// (`EST5EDT,M3.2.0,M11.1.0`) come through unchanged and fail validation.
    private static func zoneName(fromSetting setting: String) -> String {
        var name = Substring(setting)
        while let last = name.last, last == " " || last == "\t" || last == "\r" || last == "\n" { name.removeLast() }
        while let first = name.first, first == " " || first == "\t" { name.removeFirst() }
        if name.hasPrefix(":") { name.removeFirst() }
        if let range = name.firstRange(of: "zoneinfo/") { name = name[range.upperBound...] }
        return String(name)
    }

    // MARK: - Files, through Glibc

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The whole file, or nil when it cannot be opened or read.
    private static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return contents }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            contents.append(contentsOf: chunk[0..<count])
        }
    }

    private static func symbolicLinkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
