import DropTrackDispatch
import DropTrackModel

extension APIError {
    /// The wire form of a domain refusal: the status follows from the kind of refusal, and the code,
    /// message and field are the domain's, so clients see what they saw before the domain had its
    /// own errors (the OpenAPI document lists these statuses and codes).
    public init(_ error: Refusal) {
        let status =
            switch error {
            case .invalid: 400
            case .notFound: 404
            case .conflict, .activityOver: 409
            case .unprocessable: 422
            case .unavailable: 503
            // The server's own data is at fault, and a retry reads the same row.
            case .corrupt: 500
            }
        self.init(status, error.code, error.message, field: error.field)
    }
}

/// Runs a domain operation, turning its refusal into the API's.
func domain<T>(_ operation: () throws(Refusal) -> T) throws(APIError) -> T {
    do {
        return try operation()
    } catch {
        throw APIError(error)
    }
}
