#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a media file could not be read, rewritten or archived.
public enum MediaFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed; `errno` says why.
    case system(call: String, path: String, errno: Int32)
    /// The bytes do not have the structure their type promises, so we cannot
    /// be sure we found every place location could hide: refuse the file.
    case malformed(String)
    /// A zip entry name that could escape the folder it is unpacked into, or
    /// that repeats an earlier one.
    case unsafeEntryName(String)
    /// A file changed size while it was being archived.
    case changedWhileReading(String)

    public var description: String {
        switch self {
        case .system(let call, let path, let code): "\(call)(\(path)) failed: errno \(code)"
        case .malformed(let why): "malformed media: \(why)"
        case .unsafeEntryName(let name): "unsafe zip entry name: \(name.debugDescription)"
        case .changedWhileReading(let path): "file changed while being archived: \(path)"
        }
    }
}

/// An open file, closed when released. Positional reads and writes only
/// (`pread`/`pwrite`), so patching a 500 MB video touches just the bytes that
/// change and nothing depends on a shared file offset.
final class FileDescriptor {
    let raw: Int32
    let path: String

    init(path: String, flags: Int32, mode: mode_t = 0o600) throws {
        self.path = path
        let fd = open(path, flags | O_CLOEXEC, mode)
        guard fd >= 0 else { throw MediaFileError.system(call: "open", path: path, errno: errno) }
        raw = fd
    }

    /// Adopts a descriptor someone else opened (mkstemp); closes it on release.
    init(adopting fd: Int32, path: String) {
        raw = fd
        self.path = path
    }

    deinit { close(raw) }

    func size() throws -> UInt64 {
        var info = stat()
        guard fstat(raw, &info) == 0 else { throw MediaFileError.system(call: "fstat", path: path, errno: errno) }
        return UInt64(info.st_size)
    }

    func mode() throws -> mode_t {
        var info = stat()
        guard fstat(raw, &info) == 0 else { throw MediaFileError.system(call: "fstat", path: path, errno: errno) }
        return info.st_mode & 0o7777
    }

    /// Up to `count` bytes at `offset`; fewer only at end of file.
    func read(count: Int, at offset: UInt64) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = try buffer.withUnsafeMutableBytes { try read(into: $0, at: offset) }
        buffer.removeLast(count - got)
        return buffer
    }

    /// Fills `buffer` from `offset`, retrying short reads; returns the bytes
    /// read (fewer than the buffer only at end of file).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let got = pread(raw, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if got < 0 {
                if errno == EINTR { continue }
                throw MediaFileError.system(call: "pread", path: path, errno: errno)
            }
            if got == 0 { break }
            filled += got
        }
        return filled
    }

    func readAll() throws -> [UInt8] {
        let size = try size()
        guard size < UInt64(Int.max) else { throw MediaFileError.malformed("file too large") }
        return try read(count: Int(size), at: 0)
    }

    func write(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let put = pwrite(raw, buffer.baseAddress! + written, buffer.count - written, off_t(offset) + off_t(written))
                if put < 0 {
                    if errno == EINTR { continue }
                    throw MediaFileError.system(call: "pwrite", path: path, errno: errno)
                }
                written += put
            }
        }
    }

    /// Overwrites `range` with zeros in 64 KiB writes, so neutralising a
    /// large atom never needs a buffer its size.
    func writeZeros(_ range: Range<UInt64>) throws {
        let zeros = [UInt8](repeating: 0, count: 64 * 1024)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let count = Int(min(UInt64(zeros.count), range.upperBound - offset))
            try write(count == zeros.count ? zeros : Array(zeros[0..<count]), at: offset)
            offset += UInt64(count)
        }
    }

    func sync() throws {
        guard fsync(raw) == 0 else { throw MediaFileError.system(call: "fsync", path: path, errno: errno) }
    }
}

/// Writes `bytes` to a new file beside `path`, fsyncs it and renames it over
/// `path`, so a crash leaves either the old file or the whole new one. The
/// new file keeps the old one's permission bits.
func replaceFile(at path: String, with bytes: [UInt8], mode: mode_t) throws {
    var template = Array((path + ".strip-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    let temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    guard fd >= 0 else { throw MediaFileError.system(call: "mkstemp", path: temporaryPath, errno: errno) }
    do {
        let file = FileDescriptor(adopting: fd, path: temporaryPath)
        _ = fchmod(fd, mode)
        try file.write(bytes, at: 0)
        try file.sync()
        guard rename(temporaryPath, path) == 0 else {
            throw MediaFileError.system(call: "rename", path: path, errno: errno)
        }
    } catch {
        unlink(temporaryPath)
        throw error
    }
}
