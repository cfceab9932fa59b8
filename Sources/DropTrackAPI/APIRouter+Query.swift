import DropTrackDispatch
import DropTrackModel

// Query parameters of the API's reads, checked before any lookup.
extension APIRouter {
    /// `membersAfter` and `membersLimit`: which members' devices a shared activity's view lists.
    static func memberPage(_ query: [String: String]) throws(APIError) -> MemberPage {
        var page = MemberPage()
        if let after = query["membersAfter"] {
            try domain { () throws(Refusal) in try Identifier.check(after, field: "membersAfter") }
            page.after = after
        }
        if let text = query["membersLimit"] {
            guard let value = Int(text), (1...MemberPage.maximum).contains(value) else {
                throw APIError(
                    400, .invalidField, "'membersLimit' is a whole number from 1 to \(MemberPage.maximum)",
                    field: "membersLimit")
            }
            page.limit = value
        }
        return page
    }

    static func limit(_ text: String?) throws(APIError) -> Int {
        guard let text else { return 200 }
        guard let value = Int(text), value >= 0, value <= 10_000 else {
            throw APIError(
                400, .invalidField, "'timelineLimit' is a whole number from 0 to 10000", field: "timelineLimit")
        }
        return value
    }
}
