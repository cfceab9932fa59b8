import DropTrackModel

/// Runs a check of content whose rules the published schema cannot state (they come from the
/// app's configuration, the contract, or the clock): its refusals are `unprocessable`, so an
/// `invalid` refusal always means the request broke the published schema.
public func unprocessable<T>(_ body: () throws(Refusal) -> T) throws(Refusal) -> T {
    do {
        return try body()
    } catch {
        guard case .invalid(_, let message, let field) = error else { throw error }
        throw .unprocessable(message: message, field: field)
    }
}
