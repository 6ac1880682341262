import Glibc

/// One fuzz target: takes any bytes, and traps (through `require`) only when
/// Kith's code breaks a promise. Thrown errors are answers, not findings.
protocol FuzzHarness {
    /// The name `kith-fuzz` and `make fuzz` know it by; also its folder in `Tests/Fuzz/Corpus`.
    static var name: String { get }
    static func run(_ input: UnsafeRawBufferPointer)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The callback libFuzzer calls is a C function pointer and cannot capture the
/// harness chosen on the command line, so it is set here once, before fuzzing.
enum Chosen {
    nonisolated(unsafe) static var harness: any FuzzHarness.Type = HTTPParserHarness.self
}

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    Chosen.harness.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// A broken invariant: trap with a message so libFuzzer saves the input.
/// (`precondition` would drop the message in an optimised build.)
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

extension UnsafeRawBufferPointer {
    /// The first byte, which harnesses spend on how to feed the rest, and the rest.
    var controlByteAndRest: (UInt8, UnsafeRawBufferPointer)? {
        guard let first else { return nil }
        return (first, UnsafeRawBufferPointer(rebasing: self[1...]))
    }
}

/// The sizes of successive reads, as a socket might deliver them: drawn from a
/// seed the input controls, so a failing split is replayed by its input alone.
struct ReadSizes: IteratorProtocol {
    private var state: UInt64
    private let largest: UInt64

    /// Everything in one read.
    static let whole = ReadSizes(state: 0, largest: 0)

    init(seed: UInt8) {
        state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15
        // Single bytes, small reads and near-whole reads all stay reachable.
        largest = [1, 2, 3, 5, 8, 17, 64, 700][Int(seed & 7)]
    }

    private init(state: UInt64, largest: UInt64) {
        self.state = state
        self.largest = largest
    }

    mutating func next() -> Int? {
        guard largest > 0 else { return Int.max }
        // splitmix64
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Int(1 + z % largest)
    }
}

/// A directory of this process's own for the files a harness writes, made on
/// first use and removed at exit; every harness leaves it empty after each input.
enum ScratchDirectory {
    static let path: String = {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/kith-fuzz-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed: errno \(errno)") }
        let path = String(cString: made)
        atexit { _ = rmdir(ScratchDirectory.path) }
        return path
    }()

    static var entries: [String] {
        guard let directory = opendir(path) else { fatalError("opendir failed: errno \(errno)") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func write(_ bytes: [UInt8], to name: String) -> String {
        let file = path + "/" + name
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        require(fd >= 0, "cannot create \(file): errno \(errno)")
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            require(n > 0, "cannot write \(file): errno \(errno)")
            written += n
        }
        return file
    }

    static func read(_ file: String) -> [UInt8] {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        require(fd >= 0, "cannot open \(file): errno \(errno)")
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            require(n >= 0, "cannot read \(file): errno \(errno)")
            if n == 0 { return bytes }
            bytes += buffer[..<n]
        }
    }
}
