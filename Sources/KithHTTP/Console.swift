import Glibc

/// Unbuffered writes to standard output and error. `print` buffers when
/// output is a pipe, and a start-up banner must arrive when it is printed.
public enum Console {
    public static func out(_ text: String) { write(1, text + "\n") }
    public static func error(_ text: String) { write(2, text + "\n") }

    private static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
