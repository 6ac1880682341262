import Glibc

// One binary holds every harness: `kith-fuzz NAME [libFuzzer options] [corpus…]`.
//
// This file is the program's `main` and hands libFuzzer the rest of the
// arguments through `LLVMFuzzerRunDriver`, so the harness is picked first.
// `swiftc -sanitize=fuzzer` links libFuzzer with its own `main` too, but SwiftPM
// defines an executable's `main` with `--defsym`, which the linker keeps, so
// this code runs. libFuzzer's unused `main` still refers to
// `LLVMFuzzerTestOneInput`: hence that name on `testOneInput`.
// (`swift build --sanitize fuzzer --sanitize address` is not used: it passes two
// `-sanitize=` flags, swiftc keeps only the last, and the libraries would lose
// either coverage or ASan; `make fuzz` passes `-Xswiftc -sanitize=fuzzer,address`.)

let harnesses: [any FuzzHarness.Type] = [
    HTTPParserHarness.self,
    MultipartHarness.self,
    FormDataHarness.self,
    CookiesHarness.self,
    PercentDecodingHarness.self,
    MediaSnifferHarness.self,
    MetadataStripperHarness.self,
    ISOLocationPatcherHarness.self,
    HEIFLocationPatcherHarness.self,
]

/// libFuzzer re-runs the binary with the arguments it was given (`-fork`,
/// `-minimize_crash`), which no longer hold the harness name: the name
/// travels to those runs in the environment instead.
let environmentKey = "KITH_FUZZ_HARNESS"

var arguments = CommandLine.arguments
if arguments.count == 2 && arguments[1] == "list" {
    for harness in harnesses { print(harness.name) }
    exit(0)
}
var chosen: (any FuzzHarness.Type)?
if arguments.count > 1, let named = harnesses.first(where: { $0.name == arguments[1] }) {
    chosen = named
    setenv(environmentKey, named.name, 1)
    arguments.remove(at: 1)
} else if let inherited = getenv(environmentKey).map({ String(cString: $0) }) {
    chosen = harnesses.first { $0.name == inherited }
}
guard let chosen else {
    let names = harnesses.map { $0.name }.joined(separator: ", ")
    let usage = "usage: kith-fuzz list | kith-fuzz HARNESS [libFuzzer options] [corpus…]\nharnesses: \(names)\n"
    _ = usage.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(2)
}
Chosen.harness = chosen

// libFuzzer keeps pointers into argv for the whole run, so the copy is never freed.
let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: arguments.count + 1)
for (index, argument) in arguments.enumerated() { argv[index] = strdup(argument) }
argv[arguments.count] = nil
var argc = Int32(arguments.count)
var argvPointer = argv
exit(LLVMFuzzerRunDriver(&argc, &argvPointer) { testOneInput($0, $1) })
