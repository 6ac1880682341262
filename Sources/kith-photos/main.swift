import CVips
import Glibc
import KithMedia

// The only program that links libvips. The server runs it once per job so
// that libvips's hundred-odd shared libraries never live in the server, and
// so that a decoder that crashes or runs away takes only this process down.
//
//   kith-photos probe PATH
//   kith-photos make PATH OUTDIR --widths 480,960,1600 --formats webp,jpeg
//   (either may start with --memory-limit BYTES)
//
// Answers on standard output, one line each, words apart:
//   size WIDTH HEIGHT                   the photo as shown (EXIF orientation applied)
//   variant WIDTH HEIGHT FORMAT FILE    a variant written to OUTDIR/FILE
// Exit status: 0 done; 2 bad command line; 3 libvips cannot read the file
// (nothing printed); 4 the variants failed (the size was printed). What
// went wrong goes to standard error.

enum Exit {
    static let usage: Int32 = 2
    static let unreadable: Int32 = 3
    static let failed: Int32 = 4
}

func fail(_ status: Int32, _ message: String) -> Never {
    Console.error(message)
    exit(status)
}

enum Console {
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        bytes.append(UInt8(ascii: "\n"))
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
    static func out(_ text: String) { write(text, to: 1) }
    static func error(_ text: String) { write(text, to: 2) }
}

/// What libvips said went wrong, and forget it.
func vipsError() -> String {
    defer { vips_error_clear() }
    return String(cString: vips_error_buffer()).split(separator: "\n").joined(separator: "; ")
}

enum Format: String, CaseIterable {
    case webp, jpeg
    var quality: Int32 { self == .webp ? 75 : 80 }
}

/// The widths made for a photo `width` pixels wide from those asked for:
/// never enlarged, so a 700-pixel photo asked for 480/960/1600 gets 480 and 700.
func widths(_ asked: [Int], for width: Int) -> [Int] {
    guard let largest = asked.last else { return [] }
    return asked.filter { $0 < width } + (width < largest ? [width] : [largest])
}

func orientedSize(_ path: String) -> (width: Int, height: Int)? {
    var width: Int32 = 0
    var height: Int32 = 0
    guard kith_vips_oriented_size(path, &width, &height) == 0, width > 0, height > 0 else { return nil }
    return (Int(width), Int(height))
}

/// Decodes the photo once (shrunk on load where the format allows) and
/// writes every variant from that into `directory`.
func make(_ path: String, into directory: String, widths asked: [Int], formats: [Format]) throws(Failure) {
    guard let largest = kith_vips_load_fitting(path, Int32(asked.last!)) else { throw Failure("load: \(vipsError())") }
    defer { g_object_unref(largest) }
    for width in widths(asked, for: Int(vips_image_get_width(largest))).reversed() {
        let image: UnsafeMutablePointer<VipsImage>
        if width == Int(vips_image_get_width(largest)) {
            image = largest
            _ = g_object_ref(largest)
        } else {
            guard let shrunk = kith_vips_shrink(largest, Int32(width)) else { throw Failure("resize: \(vipsError())") }
            image = shrunk
        }
        defer { g_object_unref(image) }
        for format in formats {
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            let status =
                format == .webp
                ? kith_vips_save_webp(image, format.quality, &buffer, &length)
                : kith_vips_save_jpeg(image, format.quality, &buffer, &length)
            guard status == 0, let buffer else { throw Failure("save \(format): \(vipsError())") }
            let encoded = [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
            g_free(buffer)
            // libvips 8.14's WebP saver writes an EXIF chunk even when told
            // to strip; the uploads' stripper removes it.
            let bytes: [UInt8]
            do {
                (bytes, _) = try MetadataStripper.strip(encoded, container: format == .webp ? .webp : .jpeg)
            } catch {
                throw Failure("strip \(format): \(error)")
            }
            let name = "\(width).\(format.rawValue)"
            try write(bytes, to: directory + "/" + name)
            Console.out("variant \(vips_image_get_width(image)) \(vips_image_get_height(image)) \(format.rawValue) \(name)")
        }
    }
}

func write(_ bytes: [UInt8], to path: String) throws(Failure) {
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw Failure("create \(path): errno \(errno)") }
    defer { close(fd) }
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { throw Failure("write \(path): errno \(errno)") }
        offset += written
    }
}

struct Failure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--memory-limit" {
    guard arguments.count > 1, let bytes = UInt(arguments[1]) else { fail(Exit.usage, "kith-photos: --memory-limit takes bytes") }
    // A decoder that runs away fails its allocations here instead of
    // pushing the machine into swap.
    var limit = rlimit(rlim_cur: rlim_t(bytes), rlim_max: rlim_t(bytes))
    guard setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0 else { fail(Exit.usage, "kith-photos: setrlimit: errno \(errno)") }
    arguments.removeFirst(2)
}

func option(_ name: String, in arguments: [String]) -> [String]? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1].split(separator: ",").map(String.init)
}

guard let command = arguments.first, arguments.count >= 2 else {
    fail(Exit.usage, "usage: kith-photos [--memory-limit BYTES] probe PATH | make PATH OUTDIR --widths W,... --formats webp,jpeg")
}
let path = arguments[1]

// One worker thread and no operation cache: one photo per process.
guard kith_vips_start() == 0 else { fail(Exit.unreadable, "kith-photos: libvips did not start: \(vipsError())") }
guard let shown = orientedSize(path) else { fail(Exit.unreadable, "libvips cannot read it: \(vipsError())") }
Console.out("size \(shown.width) \(shown.height)")

switch command {
case "probe":
    exit(0)
case "make":
    guard arguments.count >= 3, let widthList = option("--widths", in: arguments), let formatList = option("--formats", in: arguments) else {
        fail(Exit.usage, "kith-photos make: needs OUTDIR, --widths and --formats")
    }
    let asked = widthList.compactMap { Int($0) }.filter { $0 > 0 }.sorted()
    let formats = formatList.compactMap(Format.init(rawValue:))
    guard !asked.isEmpty, asked.count == widthList.count, !formats.isEmpty, formats.count == formatList.count else {
        fail(Exit.usage, "kith-photos make: widths are positive numbers, formats webp or jpeg")
    }
    do {
        try make(path, into: arguments[2], widths: asked, formats: formats)
    } catch {
        fail(Exit.failed, "libvips \(error.message)")
    }
    exit(0)
default:
    fail(Exit.usage, "kith-photos: no command \(command)")
}
