import Hummingbird

/// Lets a request through only with `Authorization: Bearer TOKEN`; answers 401 otherwise,
/// and 403 when the server was started without an admin token.
struct AdminAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token else {
            return AdminResponse.error(.forbidden, "the admin API is off: start the server with --admin-token")
        }
        guard let header = request.headers[.authorization], Self.equal(header, "Bearer " + token) else {
            return AdminResponse.error(.unauthorized, "missing or wrong admin token (Authorization: Bearer TOKEN)")
        }
        return try await next(request, context)
    }

    /// Compares in time that depends only on the lengths, so a guess learns nothing from timing.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
