internal import CSRTP

/// libsrtp's process-wide state.
enum SRTPLibrary {
    /// The result of `srtp_init`, which runs exactly once: Swift initializes a static
    /// `let` lazily under `swift_once`, so concurrent first sessions cannot race it.
    /// libsrtp is never shut down; its crypto kernel lives as long as the process.
    static let initStatus: srtp_err_status_t = srtp_init()
}
