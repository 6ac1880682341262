import Glibc
import KithHTTP
import KithMedia
import KithStorage
import KithTemplates
import KithSync

/// A photo at the sizes pages ask for: 480, 960 and 1600 pixels wide (never
/// enlarged: a 700-pixel photo gets 480 and 700), each as WebP and as JPEG,
/// turned the way its EXIF says, with no metadata at all. Made from the
/// stored original by `PhotoVariants.Maker` in the background; the original
/// is kept for downloads and the keepsake.
enum PhotoVariants {
    static let widths = [480, 960, 1600]

    enum Format: String, Sendable, CaseIterable {
        case webp, jpeg
        var mimeType: String { "image/\(rawValue)" }
    }

    struct Variant: Sendable, Equatable {
        var width: Int
        var height: Int
        var format: Format
        var sha256: String
    }

    /// What pages know of a stored photo: its size as shown, and its variants once made.
    struct Photo: Sendable, Equatable {
        var width: Int
        var height: Int
        var variants: [Variant]
    }

    /// Columns that read a photo's size and variants beside a row naming its
    /// file (`source`, such as `m.sha256`), in the same statement.
    static func columns(_ source: SQL) -> SQL {
        """
        (SELECT p.width FROM media_photos p WHERE p.sha256 = \(source)) AS photo_width,
        (SELECT p.height FROM media_photos p WHERE p.sha256 = \(source)) AS photo_height,
        (SELECT group_concat(v.width || ' ' || v.height || ' ' || v.format || ' ' || v.sha256, ',')
         FROM media_variants v WHERE v.source_sha256 = \(source)) AS photo_variants
        """
    }

    static func photo(_ row: Row) throws -> Photo? {
        guard let width: Int = try row.get("photo_width"), let height: Int = try row.get("photo_height") else { return nil }
        let listed: String = try row.get("photo_variants") ?? ""
        let variants = listed.split(separator: ",").compactMap { entry -> Variant? in
            let fields = entry.split(separator: " ")
            guard fields.count == 4, let width = Int(fields[0]), let height = Int(fields[1]), let format = Format(rawValue: String(fields[2]))
            else { return nil }
            return Variant(width: width, height: height, format: format, sha256: String(fields[3]))
        }
        return Photo(width: width, height: height, variants: variants.sorted { ($0.width, $0.format.rawValue) < ($1.width, $1.format.rawValue) })
    }

    // MARK: Addresses

    static let widthField = "w"
    static let formatField = "f"

    /// A variant's address: the original's, asking for a width and a format,
    /// versioned by the variant's own bytes.
    static func url(_ variant: Variant, base: String) -> String {
        "\(base)?\(widthField)=\(variant.width)&\(formatField)=\(variant.format.rawValue)&\(OccasionMedia.versionField)=\(OccasionMedia.version(variant.sha256))"
    }

    /// How a page shows a stored photo: the variants when made, else the
    /// original (unless browsers cannot show it), always with its size.
    static func picture(_ photo: Photo?, base: String, original: String, mimeType: String) -> MediaView.Picture? {
        guard let photo else { return nil }
        let sources = photo.variants.map {
            MediaView.Picture.Source(url: url($0, base: base), width: $0.width, mimeType: $0.format.mimeType)
        }
        return MediaView.Picture(
            width: photo.width, height: photo.height, sources: sources,
            original: mimeType == KithMedia.MediaType.heic.mimeType ? nil : original)
    }

    /// Answers a request for a variant of a photo the caller has already
    /// found the viewer may see; nil when the request asks for the original.
    static func response(_ context: RequestContext, photo: Photo?, media: MediaStore, fileName: String) throws -> Response? {
        let query = context.request.query
        guard query[widthField] != nil || query[formatField] != nil else { return nil }
        guard let width = query[widthField].flatMap({ Int($0) }), let format = query[formatField].flatMap(Format.init(rawValue:)),
            let variant = photo?.variants.first(where: { $0.width == width && $0.format == format })
        else { throw HTTPError.notFound() }
        let asked = query[OccasionMedia.versionField]
        if let asked, asked != OccasionMedia.version(variant.sha256) { throw HTTPError.notFound() }
        // A versioned address always means the same bytes.
        var response = try Response.file(
            at: media.variantPath(for: variant.sha256), contentType: format.mimeType, request: context.request.head,
            cacheControl: asked == nil ? "private, no-cache" : "private, max-age=31536000, immutable")
        response.headers.set("Content-Security-Policy", "default-src 'none'; img-src 'self'; sandbox")
        response.headers.set("Content-Disposition", "inline; filename=\"\(fileName)-\(width).\(format == .jpeg ? "jpg" : "webp")\"")
        return response
    }

    // MARK: Making

    /// A variant `kith-photos` made, read back for storing.
    struct Made {
        var width: Int
        var height: Int
        var format: Format
        var bytes: [UInt8]
    }

    // MARK: The background maker

    /// Makes variants one photo at a time on a plain thread, through
    /// `kith-photos` (`PhotoHelper`), waiting whole seconds for a
    /// 12-megapixel photo: never on Swift's cooperative pool. Woken by `nudge` after an upload commits, and every few
    /// minutes anyway. Stopping waits for the photo in hand; a half-made
    /// photo stays pending and is made again at the next start.
    ///
    /// With several instances each photo is made by one of them: the maker
    /// claims the photo's lease before running the helper, and records the
    /// variants and gives the lease up in one transaction. An instance that
    /// dies mid-photo leaves its lease to run out (the helper's time limit
    /// for every attempt, and a minute more); then another instance makes
    /// the photo. At least once, then: a photo's variants can be made twice
    /// only when a holder outlives its lease, and being content-addressed,
    /// the second making stores the same files.
    final class Maker: Sendable {
        private let database: Database
        private let media: MediaStore
        private let logger: Logger
        private let clock: @Sendable () -> Int64
        /// Told, inside the transaction that records them, which photo's
        /// variants are ready, so the pages showing it can refetch.
        private let ready: @Sendable (Transaction, String) throws -> Void
        private let task = Lock<PeriodicTask?>(nil)
        private let leases: Leases

        init(
            database: Database, media: MediaStore, logger: Logger, clock: @escaping @Sendable () -> Int64,
            ready: @escaping @Sendable (Transaction, String) throws -> Void
        ) {
            self.database = database
            self.media = media
            self.logger = logger
            self.clock = clock
            self.ready = ready
            leases = Leases(clock: clock)
        }

        /// Long enough for every attempt the helper gets at one photo.
        private var leaseSeconds: Int64 {
            let settings = media.photos.settings
            return Int64(settings.makeTimeLimit * Double(max(1, settings.attempts))) + 60
        }

        var backgroundTask: BackgroundTask {
            let periodic = PeriodicTask("photo-variants", every: 300) { [self] in
                while makeNext() {}
            }
            task.withLock { $0 = periodic }
            return periodic.backgroundTask
        }

        func nudge() { task.withLock { $0 }?.wake() }

        /// Makes one photo's variants; false when there was none to make.
        func makeNext() -> Bool {
            do {
                // Looked for with a read first, so an idle tick writes nothing.
                guard try database.read({ try media.nextPhotoWithoutVariants($0, leases: leases) }) != nil else { return false }
                let claimed = try database.write { tx -> (sha256: String, mimeType: String)? in
                    // Again under the write lock: another instance may have
                    // claimed or finished the photo since.
                    guard let job = try media.nextPhotoWithoutVariants(tx, leases: leases) else { return nil }
                    return try leases.claim(tx, MediaStore.leaseName(job.sha256), seconds: leaseSeconds) ? job : nil
                }
                guard let job = claimed else { return false }
                try make(job.sha256, mimeType: job.mimeType)
                return true
            } catch {
                logger.log(["level": "error", "msg": "photo variants failed", "cause": String(describing: error)])
                return false
            }
        }

        private func make(_ sha256: String, mimeType: String) throws {
            let path = media.path(for: sha256)
            // Emptied once the variants made there are stored.
            defer { Self.empty(workingDirectory) }
            // An animated GIF would lose its motion, so it is shown as it is.
            let outcome = try run { helper, directory in
                mimeType == "image/gif" ? helper.probe(path) : helper.make(path, into: directory)
            }
            var shown: (width: Int, height: Int)?
            var made: [Made] = []
            var failure: String?
            switch outcome {
            case .done(let size, let files):
                shown = size
                made = try files.map { Made(width: $0.width, height: $0.height, format: $0.format, bytes: try Self.contents(of: $0.path)) }
            case .unreadable(let cause): failure = "libvips cannot read it: \(cause)"
            case .failed(let size, let cause):
                shown = size
                failure = cause
            case .broken(let cause): failure = cause
            }
            let stored = try made.map { ($0, try media.storeMade($0.bytes)) }
            let now = clock()
            try database.write { tx in
                try leases.release(tx, MediaStore.leaseName(sha256))
                guard try media.recordVariants(tx, of: sha256, shown: shown, made: stored,
                                               failed: failure != nil, now: now) else { return }
                if !stored.isEmpty { try ready(tx, sha256) }
            }
            if let failure {
                logger.log(["level": "warn", "msg": "photo shown without variants", "sha256": sha256, "cause": failure])
            }
        }

        /// Runs a job of `kith-photos` in an empty working directory, again
        /// (up to the helper's `attempts`) when the helper itself broke.
        private func run(_ job: (PhotoHelper, String) -> PhotoHelper.Outcome) throws -> PhotoHelper.Outcome {
            let directory = workingDirectory
            if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw MediaStore.MediaFailure.io("mkdir \(directory)", errno) }
            var outcome = PhotoHelper.Outcome.broken("kith-photos was not run")
            for attempt in 1...max(1, media.photos.settings.attempts) {
                Self.empty(directory)
                outcome = job(media.photos, directory)
                guard case .broken(let cause) = outcome else { break }
                logger.log(["level": "error", "msg": "photo helper failed", "attempt": String(attempt), "cause": cause])
            }
            return outcome
        }

        /// Where `kith-photos` writes one photo's variants: one photo at a
        /// time, so one directory, emptied before and after each job.
        private var workingDirectory: String { media.workDirectory }

        private static func empty(_ directory: String) {
            for name in MediaStore.entries(of: directory) { unlink(directory + "/" + name) }
        }

        private static func contents(of path: String) throws -> [UInt8] {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw MediaStore.MediaFailure.io("open \(path)", errno) }
            defer { close(fd) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw MediaStore.MediaFailure.io("read \(path)", errno) }
                if count == 0 { return bytes }
                bytes.append(contentsOf: chunk[..<count])
            }
        }
    }
}
