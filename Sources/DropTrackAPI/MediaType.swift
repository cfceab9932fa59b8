import DropTrackDispatch
import DropTrackModel

/// The one media type a request body may have: `application/json`, in any letter case, with
/// optional parameters, of which `charset` may only say UTF-8. A lenient check (anything that
/// contains "json", or no type at all) let `text/plain` bodies through, which is what a cross-site
/// form can send without a preflight, and let `charset=utf-16` bodies be read as UTF-8.
public enum JSONMediaType {
    /// What the error messages tell the caller to send.
    public static let rule = "Content-Type: application/json (parameters optional; charset, if given, utf-8)"

    /// Refuses (415) a body whose `Content-Type` is absent or not `application/json` as above.
    /// `contentType` is the header as sent; a request without a body needs none.
    public static func check(_ contentType: String?, bodyBytes: Int) throws(APIError) {
        guard let contentType else {
            guard bodyBytes == 0 else {
                throw APIError(
                    415, .unsupportedMediaType,
                    "the request has a body but no Content-Type; send \(rule)")
            }
            return
        }
        if let problem = problem(with: contentType) {
            throw APIError(
                415, .unsupportedMediaType, "Content-Type '\(contentType.prefix(100))' \(problem); send \(rule)")
        }
    }

    /// What is wrong with a `Content-Type` value, or nil when it is `application/json` as above.
    static func problem(with contentType: String) -> String? {
        let parts = contentType.split(separator: ";", omittingEmptySubsequences: false)
        let essence = parts[0].trimmingWhitespace().lowercased()
        guard essence == "application/json" else { return "is not application/json" }
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, !pair[0].trimmingWhitespace().isEmpty else {
                return "has a malformed parameter '\(parameter.trimmingWhitespace())'"
            }
            guard pair[0].trimmingWhitespace().lowercased() == "charset" else { continue }
            var value = pair[1].trimmingWhitespace()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            guard value.lowercased() == "utf-8" else { return "names charset '\(value)', and only utf-8 is read" }
        }
        return nil
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    fileprivate func trimmingWhitespace() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
