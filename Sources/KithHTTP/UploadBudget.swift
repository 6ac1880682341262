import Synchronization

/// Disk space for uploads in progress: a total for the server and a share
/// per client address. Without it, a few slow uploads of the largest allowed
/// size, each from a connection that never finishes, could fill the disk
/// that the database lives on.
///
/// Bytes are reserved as a multipart parser writes them and released when
/// the request is over (its files moved into storage or deleted).
public final class UploadBudget: Sendable {
    public enum Refusal: Sendable {
        case server
        case address
    }

    public let totalBytes: Int64
    public let perAddressBytes: Int64
    private let state = Mutex(State())

    private struct State {
        var used: Int64 = 0
        var byAddress: [String: Int64] = [:]
    }

    public init(totalBytes: Int64, perAddressBytes: Int64) {
        self.totalBytes = totalBytes
        self.perAddressBytes = perAddressBytes
    }

    /// Takes `bytes` for `address`, or says which limit it would cross.
    func reserve(_ bytes: Int64, for address: String) -> Refusal? {
        state.withLock { state in
            let mine = state.byAddress[address, default: 0]
            if state.used + bytes > totalBytes { return .server }
            if mine + bytes > perAddressBytes { return .address }
            state.used += bytes
            state.byAddress[address] = mine + bytes
            return nil
        }
    }

    func release(_ bytes: Int64, for address: String) {
        guard bytes > 0 else { return }
        state.withLock { state in
            state.used -= bytes
            let left = state.byAddress[address, default: 0] - bytes
            state.byAddress[address] = left > 0 ? left : nil
        }
    }

    /// Bytes reserved now, in all: for tests and diagnostics.
    public var bytesInUse: Int64 { state.withLock { $0.used } }
}

/// One request's hold on an `UploadBudget`, shared by the parser writing its
/// files and whoever ends the request. Released once, however it ends.
final class UploadReservation: @unchecked Sendable {
    // Touched by one thread at a time: the I/O thread while the body is read,
    // then the worker that runs the handler, then nobody; the hand-over
    // goes through the worker queue's lock.
    private let budget: UploadBudget
    let address: String
    private var held: Int64 = 0

    init(budget: UploadBudget, address: String) {
        self.budget = budget
        self.address = address
    }

    func take(_ bytes: Int64) throws(FormError) {
        switch budget.reserve(bytes, for: address) {
        case nil: held += bytes
        case .server: throw FormError.uploadSpaceFull
        case .address: throw FormError.uploadShareUsed
        }
    }

    func releaseAll() {
        budget.release(held, for: address)
        held = 0
    }
}

extension FormError {
    static let uploadSpaceFull = FormError(
        .serviceUnavailable, "Kith is receiving a lot of uploads right now. Please try again in a few minutes.")
    static let uploadShareUsed = FormError(
        .tooManyRequests, "You have several uploads on their way already. Let them finish, then try again.")
}
