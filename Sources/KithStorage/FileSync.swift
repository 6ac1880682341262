#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CSQLite

/// Forces a newly written file onto stable storage.
enum FileSync {
    /// Flushes the file, then its directory: without the second step a crash
    /// can lose the directory entry and with it the whole file.
    static func flush(fileAt path: String) throws(DatabaseError) {
        try sync(path, flags: O_RDONLY)
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        try sync(directory, flags: O_RDONLY | O_DIRECTORY)
    }

    private static func sync(_ path: String, flags: Int32) throws(DatabaseError) {
        let descriptor = open(path, flags)
        guard descriptor >= 0 else {
            throw DatabaseError(resultCode: SQLITE_IOERR, message: "cannot open \(path) to flush it: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw DatabaseError(resultCode: SQLITE_IOERR, message: "cannot flush \(path): \(String(cString: strerror(errno)))")
        }
    }
}
