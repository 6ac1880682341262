import Glibc
import KithCrypto
import KithHTTP
import KithMedia
import KithStorage
import KithSync

/// Uploaded media on disk: checked by its bytes, stripped of location,
/// named by the SHA-256 of what is kept, under `DATA/media/ab/abcd…`, never
/// below `Public/`. A file lives exactly as long as a row refers to it.
///
/// The order of an upload: the engine has streamed the part to `DATA/tmp`;
/// `accept` decides from the bytes what it is (refusing anything else, and
/// then the engine removes the temporary file), removes location metadata
/// in place, hashes, fsyncs and renames it into place; the caller records
/// it in the same transaction as the row that uses it. A crash between the
/// rename and the commit leaves a file no row names, which `sweepOrphans`
/// removes at the next start.
///
/// With `--media DIR` the originals and variants live on a directory every
/// instance shares (a network volume) rather than in the data directory.
/// Concurrent writers are safe there because a name is its content: each
/// writer fills a temporary file of its own in the target's folder and
/// renames it into place, which is atomic on one filesystem, and two
/// instances storing the same bytes end with the same file. What stays per
/// instance: uploads in progress (`DATA/tmp`, moved into the shared folder
/// once accepted), the photo helper's working folder, and the VAPID key and
/// instance secret (kept in the database or the data directory).
public final class MediaStore: Sendable {
    public let directory: String
    /// Photo variants (`PhotoVariants`), named by their own hash like the
    /// originals but apart from them: made here, never uploaded.
    public let variantDirectory: String
    /// CRC-32 by file hash, for zip archives: a stored file never changes,
    /// so it is read for this once.
    private let checksums = Lock<[String: UInt32]>([:])
    /// Who wants to know when a new photo is stored (the variant maker).
    private let photoObservers = Lock<[@Sendable () -> Void]>([])
    /// Reads and resizes photos in a child process (`kith-photos`).
    public let photos = PhotoHelper()
    /// Where `kith-photos` writes one photo's variants before they are
    /// stored: per instance, as every instance makes its own.
    public let workDirectory: String
    /// How old a file no row names must be before `sweepOrphans` removes it:
    /// on a shared directory a file that new may be another instance's
    /// upload, renamed into place and about to be committed.
    let orphanAge: Int

    /// - Parameter mediaDirectory: where `media/` and `variants/` go, when
    ///   several instances share them; nil keeps them in the data directory.
    init(dataDirectory: String, mediaDirectory: String? = nil) {
        let root = mediaDirectory ?? dataDirectory
        directory = root + "/media"
        variantDirectory = root + "/variants"
        workDirectory = mediaDirectory == nil ? variantDirectory + "/making" : dataDirectory + "/making"
        orphanAge = mediaDirectory == nil ? 0 : 3600
    }

    /// Creates the directory; removes files and rows nothing refers to.
    func prepare(_ database: Database) throws {
        let root = String(directory.dropLast("/media".count))
        for made in [root, directory, variantDirectory] where mkdir(made, 0o700) != 0 && errno != EEXIST {
            throw AppStartError.dataDirectory(made, errno)
        }
        try Leases.forgetPredecessors(database)
        try sweepOrphans(database)
    }

    /// A file as stored.
    public struct Stored: Sendable, Equatable {
        public var sha256: String
        public var mimeType: String
        public var kind: MediaKind
        public var byteCount: Int64
        /// A photo's size as shown, when libvips could read its header.
        public var width: Int? = nil
        public var height: Int? = nil
    }

    func path(for sha256: String) -> String {
        "\(directory)/\(sha256.prefix(2))/\(sha256)"
    }

    func variantPath(for sha256: String) -> String {
        "\(variantDirectory)/\(sha256.prefix(2))/\(sha256)"
    }

    /// Keyed by path, which names content in both directories.
    func crc32(ofFileAt path: String) throws -> UInt32 {
        if let known = checksums.withLock({ $0[path] }) { return known }
        let crc = try ZipWriter.crc32(ofFileAt: path)
        checksums.withLock { $0[path] = crc }
        return crc
    }

    static let acceptedFormats =
        "a photo (JPEG, HEIC, PNG, GIF or WebP), a video (MP4, MOV or WebM) or a voice note (M4A, MP3, Ogg, WAV or WebM)"

    /// Checks `upload` against what this form takes (`kind`) and its size
    /// limit, then moves it into the store. Refusals are 4xx with a message
    /// for the person; nothing is kept.
    func accept(_ upload: UploadedFile, kind: MediaKind, limit: Int) throws -> Stored {
        let name = upload.filename.isEmpty ? "That file" : "“\(upload.filename)”"
        guard upload.size > 0 else { throw HTTPError(.unprocessableContent, "\(name) is empty. Choose it again.") }
        guard upload.size <= Int64(limit) else {
            throw HTTPError(.contentTooLarge, "\(name) is larger than \(limit / 1_000_000) MB, the most Kith takes for a \(Self.noun(kind)).")
        }
        let prefix = try Self.prefix(of: upload.path)
        let type: KithMedia.MediaType
        var probed: (width: Int, height: Int)?
        switch MediaSniffer.identify(prefix, expecting: kind) {
        case .heic:
            // Taken when libvips can read it: pages show it through its
            // JPEG and WebP variants, made from it in the background.
            guard kind == .photo, let heif = MediaSniffer.heifType(prefix), let size = photos.orientedSize(ofFileAt: upload.path) else {
                throw HTTPError(
                    .unsupportedMediaType,
                    "\(name) is a HEIC or HEIF photo Kith couldn't open. Choose JPEG or take the photo again.")
            }
            type = heif
            probed = size
        case .unknown:
            throw HTTPError(.unsupportedMediaType, "Kith can't use \(name). Choose \(Self.acceptedFormats).")
        case .allowed(let found):
            guard found.kind == kind else {
                throw HTTPError(.unsupportedMediaType, "\(name) is a \(Self.noun(found.kind)); this takes a \(Self.noun(kind)).")
            }
            type = found
        }
        do {
            _ = try MetadataStripper.strip(fileAt: upload.path, type: type)
        } catch {
            throw HTTPError(.unprocessableContent, "\(name) looks damaged, so Kith can't use it. Choose another.", cause: error)
        }
        guard let sha256 = SHA256.hexOfFile(at: upload.path), let size = Self.size(of: upload.path) else {
            throw HTTPError.internal(MediaFailure.unreadable(upload.path))
        }
        let shown = type.kind == .photo ? probed ?? photos.orientedSize(ofFileAt: upload.path) : nil
        try moveIntoPlace(upload.path, target: path(for: sha256))
        return Stored(
            sha256: sha256, mimeType: type.mimeType, kind: type.kind, byteCount: size, width: shown?.width, height: shown?.height)
    }

    static func noun(_ kind: MediaKind) -> String {
        switch kind {
        case .photo: "photo"
        case .video: "video"
        case .audio: "voice note"
        }
    }

    /// Records the file (once per content) inside the caller's transaction.
    func record(_ tx: Transaction, _ stored: Stored, now: Int64) throws {
        try tx.execute("""
            INSERT INTO media_files (sha256, mime_type, kind, byte_count, created_at)
            VALUES (\(stored.sha256), \(stored.mimeType), \(stored.kind.rawValue), \(stored.byteCount), \(now))
            ON CONFLICT DO NOTHING
            """)
        // Pages can size a photo at once; its variants are made in the background.
        if stored.kind == .photo {
            try tx.execute("""
                INSERT INTO media_photos (sha256, width, height, state, updated_at)
                VALUES (\(stored.sha256), \(stored.width), \(stored.height), 'pending', \(now))
                ON CONFLICT DO NOTHING
                """)
            let observers = photoObservers.withLock { $0 }
            tx.afterCommit { for observer in observers { observer() } }
        }
    }

    /// The photos still to do, oldest first: new uploads, and photos stored
    /// before variants existed (no row yet).
    /// Photos another instance is making (`leases`) are left to it.
    func nextPhotoWithoutVariants(_ db: some Queryable, leases: Leases) throws -> (sha256: String, mimeType: String)? {
        try db.queryOne("""
            SELECT f.sha256, f.mime_type FROM media_files f LEFT JOIN media_photos p ON p.sha256 = f.sha256
            WHERE f.kind = 'photo' AND (p.state IS NULL OR p.state = 'pending')
              AND NOT \(leases.heldElsewhere("\(Self.leasePrefix) || f.sha256"))
            ORDER BY f.created_at, f.sha256 LIMIT 1
            """).map { (try $0.get("sha256"), try $0.get("mime_type")) }
    }

    /// Names a photo's lease while its variants are being made: `'photo:' || sha256`.
    static let leasePrefix = "photo:"
    static func leaseName(_ sha256: String) -> String { leasePrefix + sha256 }

    /// Records a photo's variants and its finished state. False, recording
    /// nothing, when the photo was removed while they were being made: its
    /// variant files then go once the transaction commits.
    func recordVariants(
        _ tx: Transaction, of sha256: String, shown: (width: Int, height: Int)?,
        made: [(PhotoVariants.Made, (sha256: String, byteCount: Int64))], failed: Bool, now: Int64
    ) throws -> Bool {
        guard try tx.queryOne("SELECT 1 FROM media_files WHERE sha256 = \(sha256)") != nil else {
            try unlinkVariantsAfterCommit(tx, made.map(\.1.sha256))
            return false
        }
        for (variant, file) in made {
            try tx.execute("""
                INSERT INTO media_variants (source_sha256, width, height, format, sha256, byte_count)
                VALUES (\(sha256), \(variant.width), \(variant.height), \(variant.format.rawValue), \(file.sha256), \(file.byteCount))
                ON CONFLICT (source_sha256, width, format) DO UPDATE SET
                    height = excluded.height, sha256 = excluded.sha256, byte_count = excluded.byte_count
                """)
        }
        try tx.execute("""
            INSERT INTO media_photos (sha256, width, height, state, updated_at)
            VALUES (\(sha256), \(shown?.width), \(shown?.height), \(failed ? "failed" : "ready"), \(now))
            ON CONFLICT (sha256) DO UPDATE SET width = coalesce(excluded.width, media_photos.width),
                height = coalesce(excluded.height, media_photos.height),
                state = excluded.state, updated_at = excluded.updated_at
            """)
        return true
    }

    func whenPhotoStored(_ observer: @escaping @Sendable () -> Void) {
        photoObservers.withLock { $0.append(observer) }
    }

    /// A file accepted but then not used (the action found nothing to do):
    /// removed once the transaction commits, unless a row records it.
    func discardIfUnrecorded(_ tx: Transaction, _ stored: Stored) throws {
        guard try tx.queryOne("SELECT 1 FROM media_files WHERE sha256 = \(stored.sha256)") == nil else { return }
        let path = path(for: stored.sha256)
        tx.afterCommit { unlink(path) }
    }

    /// Forgets every file no row refers to any more, and deletes them from
    /// disk once the transaction commits (a rollback keeps them).
    func collectGarbage(_ tx: Transaction) throws {
        let unusedFiles: SQL = """
            SELECT sha256 FROM media_files
            WHERE sha256 NOT IN (SELECT sha256 FROM occasion_media)
              AND sha256 NOT IN (SELECT sha256 FROM occasion_thanks WHERE sha256 IS NOT NULL)
            """
        let variants: [String] = try tx.query("""
            DELETE FROM media_variants WHERE source_sha256 IN (\(unusedFiles)) RETURNING sha256
            """).map { try $0.get("sha256") }
        let unused: [String] = try tx.query("""
            DELETE FROM media_files WHERE sha256 IN (\(unusedFiles)) RETURNING sha256
            """).map { try $0.get("sha256") }
        try unlinkVariantsAfterCommit(tx, variants)
        guard !unused.isEmpty else { return }
        let paths = unused.map(path(for:))
        tx.afterCommit { for path in paths { unlink(path) } }
    }

    /// Deletes these variant files once the transaction commits, except any
    /// another photo still has (two uploads differing only in metadata the
    /// stripper keeps shrink to the same bytes).
    func unlinkVariantsAfterCommit(_ tx: Transaction, _ hashes: [String]) throws {
        let gone = try hashes.filter { sha256 in try tx.queryOne("SELECT 1 FROM media_variants WHERE sha256 = \(sha256)") == nil }
        guard !gone.isEmpty else { return }
        let paths = gone.map(variantPath(for:))
        tx.afterCommit { for path in paths { unlink(path) } }
    }

    /// At start: rows nothing refers to go with their files, and files no
    /// row names (a crash between rename and commit) go too.
    func sweepOrphans(_ database: Database) throws {
        try database.write { tx in try collectGarbage(tx) }
        for (folder, table) in [(directory, "media_files" as SQL), (variantDirectory, "media_variants")] {
            let known = Set(try database.read { db in try db.query("SELECT sha256 FROM \(table)").map { try $0.get("sha256") as String } })
            let before = time(nil) - orphanAge
            for shard in Self.entries(of: folder) where shard.utf8.count == 2 {
                for file in Self.entries(of: "\(folder)/\(shard)") where !known.contains(file) {
                    let path = "\(folder)/\(shard)/\(file)"
                    var info = stat()
                    if orphanAge > 0, stat(path, &info) == 0, info.st_mtim.tv_sec > before { continue }
                    unlink(path)
                }
            }
        }
    }

    // MARK: Files

    enum MediaFailure: Error, CustomStringConvertible {
        case unreadable(String)
        case io(String, Int32)
        var description: String {
            switch self {
            case .unreadable(let path): "cannot read \(path)"
            case .io(let what, let code): "\(what): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Up to 64 KiB from the start of a file: enough for every signature.
    static func prefix(of path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HTTPError.internal(MediaFailure.io("open \(path)", errno)) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var filled = 0
        while filled < buffer.count {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            filled += count
        }
        return Array(buffer.prefix(filled))
    }

    static func size(of path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// Stores bytes made here (a photo's variant) under their own hash.
    func storeMade(_ bytes: [UInt8]) throws -> (sha256: String, byteCount: Int64) {
        let sha256 = SHA256.hex(bytes)
        let shard = "\(variantDirectory)/\(sha256.prefix(2))"
        if mkdir(shard, 0o700) != 0 && errno != EEXIST { throw MediaFailure.io("mkdir \(shard)", errno) }
        // Written beside its final name, under a name no other writer uses
        // (instances share the folder); a crash leaves a file `sweepOrphans` removes.
        let temporary = Self.temporaryName(beside: variantPath(for: sha256))
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw MediaFailure.io("open \(temporary)", errno) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let code = errno
                close(fd)
                unlink(temporary)
                throw MediaFailure.io("write \(temporary)", code)
            }
            written += count
        }
        close(fd)
        try moveIntoPlace(temporary, target: variantPath(for: sha256))
        return (sha256, Int64(bytes.count))
    }

    /// fsync the file, rename it to its content's name, fsync the directory:
    /// once this returns, the bytes survive a crash.
    private func moveIntoPlace(_ temporary: String, target: String) throws {
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw HTTPError.internal(MediaFailure.io("open \(temporary)", errno)) }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced else { throw HTTPError.internal(MediaFailure.io("fsync \(temporary)", errno)) }
        let shard = String(target[..<target.lastIndex(of: "/")!])
        if mkdir(shard, 0o700) != 0 && errno != EEXIST { throw HTTPError.internal(MediaFailure.io("mkdir \(shard)", errno)) }
        if access(target, F_OK) == 0 {
            unlink(temporary)  // the same bytes are already stored
            return
        }
        if rename(temporary, target) != 0 {
            // Uploads in progress stay in the instance's own data directory;
            // a shared media directory may be another filesystem.
            guard errno == EXDEV else { throw HTTPError.internal(MediaFailure.io("rename to \(target)", errno)) }
            let copy = Self.temporaryName(beside: target)
            do {
                try Self.copyFile(temporary, to: copy)
                guard rename(copy, target) == 0 else { throw HTTPError.internal(MediaFailure.io("rename to \(target)", errno)) }
            } catch {
                unlink(copy)
                throw error
            }
            unlink(temporary)
        }
        let directoryFD = open(shard, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// `target` with a suffix no other writer, in this process or another
    /// instance, picks: `.partial-<random>`.
    static func temporaryName(beside target: String) -> String {
        "\(target).partial-\(SecureRandom.token(bytes: 9))"
    }

    /// Copies a file and fsyncs the copy: for a move across filesystems.
    private static func copyFile(_ source: String, to destination: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw HTTPError.internal(MediaFailure.io("open \(source)", errno)) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw HTTPError.internal(MediaFailure.io("open \(destination)", errno)) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw HTTPError.internal(MediaFailure.io("read \(source)", errno)) }
            if count == 0 { break }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                if step < 0 && errno == EINTR { continue }
                guard step > 0 else { throw HTTPError.internal(MediaFailure.io("write \(destination)", errno)) }
                written += step
            }
        }
        guard fsync(output) == 0 else { throw HTTPError.internal(MediaFailure.io("fsync \(destination)", errno)) }
    }

    static func entries(of directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
