#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams a zip archive to a sink, for the keepsake download.
///
/// - Method "stored" only: photos, video and audio are already compressed,
///   and the HTML and CSS beside them are small. Storing keeps the writer
///   simple and the archive opens everywhere.
/// - One pass, nothing held but the central directory: entries from a path
///   are read in chunks (a video may be 500 MB) and their CRC-32 computed as
///   the chunks go to the sink. Because the CRC is only known afterwards,
///   those entries set flag bit 3 and follow their data with a data
///   descriptor (the local header carries zeros; the central directory, which
///   every unzipper reads, carries the real values). Entries given as bytes
///   have their CRC computed first and need no descriptor.
/// - ZIP64 records when an entry's size or an offset reaches 4 GiB, or there
///   are 65,535 entries or more; plain records otherwise, so small archives
///   stay readable by the oldest tools.
/// - Names are UTF-8 (flag bit 11) and must be safe to unpack: relative, no
///   `..` or `.` parts, no backslashes, colons or control characters, no
///   repeats (ignoring case, which macOS and Windows ignore).
///
/// Not thread-safe: one writer belongs to one response.
public final class ZipWriter {
    /// Receives the archive in order. A throw (the client went away) stops the
    /// writer; later calls throw too.
    public typealias Sink = ([UInt8]) throws -> Void

    private struct CentralRecord {
        var name: [UInt8]
        var crc: UInt32
        var size: UInt64
        var localHeaderOffset: UInt64
        var flags: UInt16
    }

    private let sink: Sink
    private let dosTime: UInt16
    private let dosDate: UInt16
    private var records: [CentralRecord] = []
    private var namesSeen: Set<String> = []
    private var isClosed = false
    /// How many bytes have gone to the sink so far.
    public private(set) var bytesWritten: UInt64 = 0

    /// Where 32-bit fields stop being enough. Internal so tests can lower it
    /// and check the ZIP64 layout with real unzippers on small files.
    var zip64Limit: UInt64 = 0xFFFF_FFFF
    /// How large each read from a file entry is.
    var chunkSize = 1 << 20

    /// - Parameter modificationTime: seconds since 1970 (UTC) stamped on every
    ///   entry; zip stores local wall time, so an unzipper shows it unshifted.
    public init(modificationTime: Int64 = 0, sink: @escaping Sink) {
        self.sink = sink
        (dosDate, dosTime) = Self.dosDateTime(modificationTime)
    }

    /// Writes to an open descriptor (a file, a pipe, a socket) with `write`.
    public convenience init(fileDescriptor: Int32, modificationTime: Int64 = 0) {
        self.init(modificationTime: modificationTime) { chunk in
            try chunk.withUnsafeBytes { buffer in
                var written = 0
                while written < buffer.count {
                    let put = write(fileDescriptor, buffer.baseAddress! + written, buffer.count - written)
                    if put < 0 {
                        if errno == EINTR { continue }
                        throw MediaFileError.system(call: "write", path: "fd \(fileDescriptor)", errno: errno)
                    }
                    written += put
                }
            }
        }
    }

    /// The CRC-32 a zip entry (or a PNG chunk) carries for `bytes`.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// Adds an entry holding `bytes` (an `index.html`, a stylesheet).
    public func add(name: String, bytes: [UInt8]) throws {
        let encodedName = try claim(name)
        let size = UInt64(bytes.count)
        let record = CentralRecord(
            name: encodedName, crc: Self.crc32(bytes), size: size, localHeaderOffset: bytesWritten, flags: 0x0800
        )
        try emit(localHeader(for: record, zip64: size >= zip64Limit))
        try emit(bytes)
        records.append(record)
    }

    /// Adds an entry holding the file at `path`, read in chunks and followed
    /// by a data descriptor. Throws if the file's size changes while it is read.
    public func add(name: String, contentsOf path: String) throws {
        let encodedName = try claim(name)
        let file = try FileDescriptor(path: path, flags: O_RDONLY)
        let size = try file.size()
        let zip64 = size >= zip64Limit
        var record = CentralRecord(name: encodedName, crc: 0, size: size, localHeaderOffset: bytesWritten, flags: 0x0808)
        try emit(localHeader(for: record, zip64: zip64))
        do {
            record.crc = try stream(file, size: size)
        } catch {
            throw fail(error)
        }
        var descriptor: [UInt8] = []
        descriptor.appendLE32(0x0807_4B50)
        descriptor.appendLE32(record.crc)
        if zip64 {
            descriptor.appendLE64(size); descriptor.appendLE64(size)
        } else {
            descriptor.appendLE32(UInt32(size)); descriptor.appendLE32(UInt32(size))
        }
        try emit(descriptor)
        records.append(record)
    }

    /// Adds an entry of `size` bytes whose CRC-32 is already known and whose
    /// bytes the caller delivers itself, in order, from `deliver` — where a
    /// server splices the file into the response with `sendfile` instead of
    /// copying it through the sink. The local header carries the real CRC
    /// and sizes, so no data descriptor follows.
    public func add(name: String, size: UInt64, crc32: UInt32, deliver: () throws -> Void) throws {
        let encodedName = try claim(name)
        let record = CentralRecord(name: encodedName, crc: crc32, size: size, localHeaderOffset: bytesWritten, flags: 0x0800)
        try emit(localHeader(for: record, zip64: size >= zip64Limit))
        do {
            try deliver()
        } catch {
            throw fail(error)
        }
        bytesWritten += size
        records.append(record)
    }

    /// The CRC-32 of a whole file, read in chunks.
    public static func crc32(ofFileAt path: String) throws -> UInt32 {
        let file = try FileDescriptor(path: path, flags: O_RDONLY)
        return try checksummedChunks(of: file, size: try file.size(), chunkSize: 1 << 20) { _ in }
    }

    /// Sends the file's bytes to the sink in chunks; returns their CRC-32.
    private func stream(_ file: FileDescriptor, size: UInt64) throws -> UInt32 {
        let crc = try Self.checksummedChunks(of: file, size: size, chunkSize: chunkSize) { try emit($0) }
        guard try file.read(count: 1, at: size).isEmpty else { throw MediaFileError.changedWhileReading(file.path) }
        return crc
    }

    /// Reads the first `size` bytes in chunks, handing each to `body`, and
    /// returns their CRC-32; a file shorter than `size` throws.
    private static func checksummedChunks(
        of file: FileDescriptor, size: UInt64, chunkSize: Int, _ body: ([UInt8]) throws -> Void
    ) throws -> UInt32 {
        var crc = CRC32()
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var offset: UInt64 = 0
        while offset < size {
            let wanted = Int(min(UInt64(chunkSize), size - offset))
            let got = try buffer.withUnsafeMutableBytes { raw in
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]), at: offset)
            }
            guard got == wanted else { throw MediaFileError.changedWhileReading(file.path) }
            let chunk = got == buffer.count ? buffer : Array(buffer[0..<got])
            crc.update(chunk)
            try body(chunk)
            offset += UInt64(got)
        }
        return crc.value
    }

    /// Writes the central directory and end records. Returns the archive's
    /// total length. The writer takes no more entries afterwards.
    @discardableResult
    public func finish() throws -> UInt64 {
        try checkOpen()
        let directoryOffset = bytesWritten
        var directory: [UInt8] = []
        for record in records {
            directory += centralHeader(for: record)
            if directory.count >= 1 << 20 {
                try emit(directory)
                directory.removeAll(keepingCapacity: true)
            }
        }
        try emit(directory)
        let directorySize = bytesWritten - directoryOffset
        let count = UInt64(records.count)

        let needsZip64 = count >= 0xFFFF || directoryOffset >= zip64Limit || directorySize >= zip64Limit
        var end: [UInt8] = []
        if needsZip64 {
            let zip64EndOffset = bytesWritten
            end.appendLE32(0x0606_4B50)
            end.appendLE64(44) // size of the rest of this record
            end.appendLE16(0x032D) // made by: Unix, 4.5
            end.appendLE16(45)
            end.appendLE32(0); end.appendLE32(0) // this disk, directory's disk
            end.appendLE64(count); end.appendLE64(count)
            end.appendLE64(directorySize)
            end.appendLE64(directoryOffset)
            end.appendLE32(0x0706_4B50) // locator
            end.appendLE32(0)
            end.appendLE64(zip64EndOffset)
            end.appendLE32(1)
        }
        end.appendLE32(0x0605_4B50)
        end.appendLE16(0); end.appendLE16(0)
        let shortCount = needsZip64 ? 0xFFFF : UInt16(count)
        end.appendLE16(shortCount); end.appendLE16(shortCount)
        end.appendLE32(needsZip64 ? 0xFFFF_FFFF : UInt32(directorySize))
        end.appendLE32(needsZip64 ? 0xFFFF_FFFF : UInt32(directoryOffset))
        end.appendLE16(0) // comment length
        try emit(end)
        isClosed = true
        return bytesWritten
    }

    /// Throws `MediaFileError.unsafeEntryName` unless `name` is a relative
    /// path that stays inside the folder it is unpacked into on any system.
    public static func checkName(_ name: String) throws {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 0xFFFF,
              !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: ":") })
        else { throw MediaFileError.unsafeEntryName(name) }
        for part in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.elementsEqual([UInt8(ascii: ".")]) == false,
                  part.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) == false
            else { throw MediaFileError.unsafeEntryName(name) }
        }
    }

    // MARK: - Records

    private func claim(_ name: String) throws -> [UInt8] {
        try checkOpen()
        try Self.checkName(name)
        guard namesSeen.insert(name.lowercased()).inserted else { throw MediaFileError.unsafeEntryName(name) }
        return Array(name.utf8)
    }

    private func localHeader(for record: CentralRecord, zip64: Bool) -> [UInt8] {
        let streamed = record.flags & 0x0008 != 0
        var header: [UInt8] = []
        header.appendLE32(0x0403_4B50)
        header.appendLE16(zip64 ? 45 : 20)
        header.appendLE16(record.flags)
        header.appendLE16(0) // stored
        header.appendLE16(dosTime); header.appendLE16(dosDate)
        header.appendLE32(streamed ? 0 : record.crc)
        let shortSize: UInt32 = zip64 ? 0xFFFF_FFFF : streamed ? 0 : UInt32(record.size)
        header.appendLE32(shortSize); header.appendLE32(shortSize)
        header.appendLE16(UInt16(record.name.count))
        header.appendLE16(zip64 ? 20 : 0)
        header += record.name
        if zip64 {
            // A local ZIP64 field holds both sizes; zeros when a descriptor follows.
            header.appendLE16(0x0001); header.appendLE16(16)
            header.appendLE64(streamed ? 0 : record.size); header.appendLE64(streamed ? 0 : record.size)
        }
        return header
    }

    private func centralHeader(for record: CentralRecord) -> [UInt8] {
        let bigSize = record.size >= zip64Limit
        let bigOffset = record.localHeaderOffset >= zip64Limit
        var extra: [UInt8] = []
        if bigSize || bigOffset {
            // Only the fields that overflowed, in this fixed order.
            extra.appendLE16(0x0001)
            extra.appendLE16(UInt16((bigSize ? 16 : 0) + (bigOffset ? 8 : 0)))
            if bigSize { extra.appendLE64(record.size); extra.appendLE64(record.size) }
            if bigOffset { extra.appendLE64(record.localHeaderOffset) }
        }
        let needed: UInt16 = extra.isEmpty ? 20 : 45
        var header: [UInt8] = []
        header.appendLE32(0x0201_4B50)
        header.appendLE16(0x0300 | needed) // made by Unix, so the mode below is honoured
        header.appendLE16(needed)
        header.appendLE16(record.flags)
        header.appendLE16(0)
        header.appendLE16(dosTime); header.appendLE16(dosDate)
        header.appendLE32(record.crc)
        let shortSize = bigSize ? 0xFFFF_FFFF : UInt32(record.size)
        header.appendLE32(shortSize); header.appendLE32(shortSize)
        header.appendLE16(UInt16(record.name.count))
        header.appendLE16(UInt16(extra.count))
        header.appendLE16(0) // comment
        header.appendLE16(0) // disk
        header.appendLE16(0) // internal attributes
        header.appendLE32(0o100644 << 16) // a regular file, rw-r--r--
        header.appendLE32(bigOffset ? 0xFFFF_FFFF : UInt32(record.localHeaderOffset))
        header += record.name
        header += extra
        return header
    }

    // MARK: - Output

    private func emit(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        do {
            try sink(bytes)
        } catch {
            throw fail(error)
        }
        bytesWritten += UInt64(bytes.count)
    }

    /// Marks the writer unusable: the archive already on the wire is broken.
    private func fail(_ error: Error) -> Error {
        isClosed = true
        return error
    }

    private func checkOpen() throws {
        guard !isClosed else { throw MediaFileError.malformed("zip archive already finished or failed") }
    }

    /// MS-DOS date and time fields for a UTC timestamp (clamped to 1980–2107,
    /// the years the format can hold; seconds are kept in steps of two).
    static func dosDateTime(_ seconds: Int64) -> (date: UInt16, time: UInt16) {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        // Civil date from days since 1970-01-01 (proleptic Gregorian).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        if year < 1980 { return (0x21, 0) } // 1980-01-01 00:00
        if year > 2107 { return (0xFF9F, 0xBF7D) } // 2107-12-31 23:59:58
        let date = UInt16((year - 1980) << 9 | month << 5 | day)
        let time = UInt16((secondOfDay / 3600) << 11 | (secondOfDay % 3600 / 60) << 5 | (secondOfDay % 60) / 2)
        return (date, time)
    }
}
