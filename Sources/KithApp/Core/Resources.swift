import Glibc

/// Finds `Public/` and `Migrations/`: from `--root`, else beside the
/// executable or in a folder above it (a build tree keeps the binary in
/// `.build/debug/`), else in `../share/kith` for an installed binary. So
/// `kith` runs from any working directory.
public enum Resources {
    public struct Location: Sendable {
        public let root: String
        public var publicDirectory: String { root + "/Public" }
        public var migrationsDirectory: String { root + "/Migrations" }
    }

    public static func locate(explicitRoot: String?) throws -> Location {
        if let explicitRoot {
            guard holdsResources(explicitRoot) else {
                throw UsageError("\(explicitRoot) has no Public/ and Migrations/ folders")
            }
            return Location(root: explicitRoot)
        }
        var candidates: [String] = []
        var directory = executableDirectory()
        while directory.count > 1 {
            candidates.append(directory)
            candidates.append(directory + "/../share/kith")
            directory = parent(of: directory)
        }
        if let found = candidates.first(where: holdsResources) { return Location(root: found) }
        throw UsageError("cannot find Kith's Public/ and Migrations/ folders; pass --root DIR")
    }

    private static func holdsResources(_ directory: String) -> Bool {
        isDirectory(directory + "/Public") && isDirectory(directory + "/Migrations")
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    private static func executableDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return "." }
        return parent(of: String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
