#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Identifies the calling OS thread, so re-entrant use of a connection on the same
/// thread (which would self-deadlock) can be diagnosed instead of hanging.
enum ThreadIdentity {
    /// Never zero, so zero can mean "no thread".
    static var current: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
