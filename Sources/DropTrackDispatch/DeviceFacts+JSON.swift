import DropTrackContract
import DropTrackModel
import DropTrackWire

extension DeviceFacts {
    /// Reads device facts as an app reports them (the `device` object of a token registration),
    /// strictly: an unknown key (with the nearest known one) or a wrong type is refused naming its
    /// path under `path`. Read field by field, without a JSON decoder: an import checks one per token.
    public static func decode(_ value: JSONValue, path: String = "device") throws(Refusal) -> Self {
        func refuse(_ field: String, _ problem: String) -> Refusal {
            .invalid(field, "'\(field)': \(problem); see docs/reference/device-api.md, Device facts")
        }
        guard let object = value.objectValue else {
            throw refuse(path, "must be an object, not a \(value.typeName)")
        }
        for key in object.keys.sorted() where !keys.contains(key) {
            let hint = KeySuggestion.nearest(key, among: keys).map { "; did you mean '\($0)'?" } ?? ""
            throw refuse("\(path).\(key)", "unknown key\(hint) (known: \(keys.sorted().joined(separator: ", ")))")
        }
        func present(_ key: CodingKeys) -> JSONValue? {
            guard let member = object[key.rawValue], member != .null else { return nil }
            return member
        }
        func wrongType(_ key: CodingKeys, _ expected: String, _ member: JSONValue) -> Refusal {
            refuse("\(path).\(key.rawValue)", "wrong JSON type: expected \(expected), not a \(member.typeName)")
        }
        func text(_ key: CodingKeys) throws(Refusal) -> String? {
            guard let member = present(key) else { return nil }
            guard let text = member.stringValue else { throw wrongType(key, "a string", member) }
            return text
        }
        func flag(_ key: CodingKeys) throws(Refusal) -> Bool? {
            guard let member = present(key) else { return nil }
            guard let flag = member.boolValue else { throw wrongType(key, "true or false", member) }
            return flag
        }
        func count(_ key: CodingKeys) throws(Refusal) -> Int? {
            guard let member = present(key) else { return nil }
            guard let number = member.numberValue, number.rounded() == number,
                let count = Int(checking: number, within: 0...1_000_000)
            else { throw wrongType(key, "an integer from 0 to 1000000", member) }
            return count
        }
        return Self(
            osVersion: try text(.osVersion), appBuild: try text(.appBuild), manufacturer: try text(.manufacturer),
            isSimulator: try flag(.isSimulator), isDevClient: try flag(.isDevClient),
            areActivitiesEnabled: try flag(.areActivitiesEnabled),
            frequentPushesEnabled: try flag(.frequentPushesEnabled),
            notificationsEnabled: try flag(.notificationsEnabled), canPostPromoted: try flag(.canPostPromoted),
            userAllowsLiveUpdates: try flag(.userAllowsLiveUpdates), activeActivities: try count(.activeActivities),
            launchesWithoutPushToStartToken: try count(.launchesWithoutPushToStartToken))
    }
}
