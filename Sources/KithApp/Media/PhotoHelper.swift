import Glibc
import KithSync

/// The server's side of `kith-photos`, the separate program that reads and
/// resizes photos with libvips. The server never links libvips: its shared
/// libraries would cost every idle server ~20 MiB, and a decoder crash on
/// an uploaded file would take every request down with it. Each job is a
/// child process under a wall-time and a memory limit.
public final class PhotoHelper: Sendable {
    public struct Settings: Sendable {
        /// The `kith-photos` executable.
        public var executable: String
        /// Seconds a probe (at upload, on the request's worker) may take.
        public var probeTimeLimit: Double = 20
        /// Seconds making one photo's variants may take.
        public var makeTimeLimit: Double = 180
        /// The child's address-space limit: a 12-megapixel HEIC decodes in
        /// well under a quarter of this.
        public var memoryLimit: Int = 1 << 30
        /// Runs of one photo's job that end in a crash or a kill before the
        /// photo is left as its original.
        public var attempts = 2

        public init(executable: String) { self.executable = executable }
    }

    private let current: Lock<Settings>

    public var settings: Settings {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    init(settings: Settings = Settings(executable: PhotoHelper.defaultExecutable())) {
        current = Lock(settings)
    }

    /// `KITH_PHOTOS` when set, else `kith-photos` beside the running
    /// executable: `make install` puts them together, and `swift build`
    /// leaves both (and the test bundle) in one directory.
    static func defaultExecutable() -> String {
        if let named = getenv("KITH_PHOTOS"), named.pointee != 0 { return String(cString: named) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "kith-photos" }
        let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return directory + "/kith-photos"
    }

    /// How a job ended, as far as the server cares.
    enum Outcome {
        /// The photo's size as shown, and the variants written (for `make`).
        case done(shown: (width: Int, height: Int), made: [MadeFile])
        /// libvips cannot read the file: it is no photo Kith can use.
        case unreadable(String)
        /// The size is known but the variants could not be made.
        case failed(shown: (width: Int, height: Int), String)
        /// The helper crashed, ran out of time or memory, or is missing;
        /// says nothing about the file, so it may be tried again.
        case broken(String)
    }

    struct MadeFile {
        var width: Int
        var height: Int
        var format: PhotoVariants.Format
        var path: String
    }

    /// A photo's size as shown (EXIF orientation applied), or nil when it
    /// cannot be read, for whatever reason.
    func orientedSize(ofFileAt path: String) -> (width: Int, height: Int)? {
        if case .done(let shown, _) = probe(path) { return shown }
        return nil
    }

    func probe(_ path: String) -> Outcome {
        run(["probe", path], timeLimit: settings.probeTimeLimit, directory: nil)
    }

    /// Makes `path`'s variants as files in `directory`.
    func make(_ path: String, into directory: String) -> Outcome {
        let widths = PhotoVariants.widths.map(String.init).joined(separator: ",")
        let formats = PhotoVariants.Format.allCases.map(\.rawValue).joined(separator: ",")
        return run(
            ["make", path, directory, "--widths", widths, "--formats", formats], timeLimit: settings.makeTimeLimit, directory: directory)
    }

    private func run(_ job: [String], timeLimit: Double, directory: String?) -> Outcome {
        let settings = settings
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run(settings.executable, ["--memory-limit", String(settings.memoryLimit)] + job, timeLimit: timeLimit)
        } catch {
            return .broken(String(describing: error))
        }
        var shown: (width: Int, height: Int)?
        var made: [MadeFile] = []
        for line in result.outputText.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if words.count == 3, words[0] == "size", let width = Int(words[1]), let height = Int(words[2]), width > 0, height > 0 {
                shown = (width, height)
            } else if words.count == 5, words[0] == "variant", let directory, let width = Int(words[1]), let height = Int(words[2]),
                let format = PhotoVariants.Format(rawValue: words[3]), !words[4].contains("/")
            {
                made.append(MadeFile(width: width, height: height, format: format, path: directory + "/" + words[4]))
            }
        }
        let said = result.errorText.split(separator: "\n").joined(separator: "; ")
        switch (result.ending, shown) {
        case (.exited(0), let shown?): return .done(shown: shown, made: made)
        case (.exited(3), nil): return .unreadable(said)
        case (.exited(4), let shown?): return .failed(shown: shown, said)
        default: return .broken("kith-photos \(result.ending): \(said)")
        }
    }
}
