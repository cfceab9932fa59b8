import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

// The domain's results as the JSON API answers them.

extension ActivityVersion {
    /// The answer to an event, update or end.
    public var json: JSONValue {
        .object([
            "activityId": .string(activityId), "state": .string(state.rawValue),
            "version": .number(Double(version)), "timestamp": .number(Double(timestamp)),
            "event": .string(event.rawValue), "priority": .number(Double(priority)),
            "destinations": .number(Double(destinations)), "notes": .array(notes.map { .string($0) }),
            "contentState": contentState,
        ])
    }
}

extension ActivitySnapshot {
    /// The answer to `GET /v1/activities/{id}`.
    public var json: JSONValue {
        .object([
            "activityId": .string(activity.id), "userId": .string(activity.userId),
            "attributesType": .string(activity.attributesType), "attributes": activity.attributes,
            "state": .string(activity.state.rawValue), "version": .number(Double(activity.version)),
            "timestamp": .number(Double(activity.timestamp)), "event": .string(activity.event.rawValue),
            "priority": .number(Double(activity.priority)), "contentState": activity.contentState,
            "staleDate": activity.staleDate.map { .number(Double($0)) } ?? .null,
            "dismissAt": activity.dismissAt.map { .number($0.timeIntervalSince1970.rounded()) } ?? .null,
            "pendingSends": .number(Double(pendingSends)),
            "channelId": activity.channelId.map { .string($0) } ?? .null,
            "devices": .array(devices.map(Self.deviceJSON)),
            "timeline": .array(timeline.map(ActivityRegistry.timelineJSON)),
            "audience": activity.audienceSummary ?? .null,
            "progress": progress?.json ?? .null,
            "devicesPage": devicesPage.map { page in
                .object([
                    "membersAfter": page.after.map { .string($0) } ?? .null, "members": .number(Double(page.listed)),
                    "nextMembersAfter": page.next.map { .string($0) } ?? .null,
                ])
            } ?? .null,
        ])
    }

    /// A device by its token's fingerprint (never the token), with what the device reported.
    static func deviceJSON(_ token: TokenRecord) -> JSONValue {
        .object([
            "fingerprint": .string(token.fingerprint.value), "kind": .string(token.kind.rawValue),
            "deviceId": .string(token.deviceId),
            "environment": token.environment.map { .string($0.rawValue) } ?? .null, "valid": .bool(token.isValid),
            "invalidReason": token.invalidReason.map { .string($0.stored) } ?? .null,
            "lastSeenAt": .number(token.lastSeenAt.timeIntervalSince1970.rounded()),
            "device": token.device ?? .null,
        ])
    }
}

extension ActivityStarted {
    /// The answer to `POST /v1/activities`: a replay answers as the first start did.
    public var json: JSONValue {
        var byKind: [String: JSONValue] = [:]
        for (kind, count) in destinationsByKind { byKind[kind.rawValue] = .number(Double(count)) }
        var object: [String: JSONValue] = [
            "activityId": .string(activityId), "state": .string(state.rawValue),
            "version": .number(Double(version)), "timestamp": .number(Double(timestamp)),
            "destinations": .number(Double(destinations)),
            "destinationsByKind": .object(byKind),
            "startAt": startAt.map { .number(Double($0)) } ?? .null,
            "channelId": channelId.map { .string($0) } ?? .null,
        ]
        if let members { object["members"] = .number(Double(members)) }
        return .object(object)
    }
}

extension AudienceProgress {
    /// The `progress` of `GET /v1/activities/{id}` for a shared activity.
    public var json: JSONValue {
        .object([
            "members": .number(Double(members)), "devicesTargeted": .number(Double(devicesTargeted)),
            "started": .number(Double(started)),
            "failedByReason": .object(failedByReason.mapValues { .number(Double($0)) }),
            "pending": .number(Double(pending)),
        ])
    }
}

extension LifecycleReported {
    /// The answer to `POST /v1/activities/{id}/lifecycle`.
    public var json: JSONValue {
        .object([
            "activityId": .string(activityId), "deviceId": .string(deviceId), "state": .string(state.rawValue),
            "tokensInvalidated": .number(Double(tokensInvalidated)),
        ])
    }
}

extension ActionPressed {
    /// The answer to `POST /v1/activities/{id}/actions`: the press, and the version its event made.
    public var json: JSONValue {
        .object([
            "activityId": .string(activityId), "deviceId": .string(deviceId), "action": .string(action),
            "version": .number(Double(version.version)), "state": .string(version.state.rawValue),
            "destinations": .number(Double(version.destinations)),
        ])
    }
}

extension DeviceActivity {
    /// One entry of `GET /v1/devices/{deviceId}/activities`.
    public var json: JSONValue {
        .object([
            "activityId": .string(activityId), "attributesType": .string(attributesType),
            "state": .string(state.rawValue), "version": .number(Double(version)),
            "tokenFingerprint": .string(tokenFingerprint.value), "tokenValid": .bool(tokenValid),
        ])
    }
}

extension Diagnosis {
    /// The answer to `GET /v1/activities/{id}/diagnosis`, before the devices' own drops are added.
    public var json: JSONValue {
        .object([
            "activityId": .string(activityId), "state": .string(state.rawValue),
            "version": .number(Double(version)), "timestamp": .number(Double(timestamp)),
            "findings": .array(findings.map(\.json)), "devices": .array(devices.map(\.json)),
        ])
    }
}

extension Diagnosis.Finding {
    /// `{trap, severity, message, fix, device}`, with null for a finding without trap or device.
    public var json: JSONValue {
        .object([
            "trap": trap.map { .string($0) } ?? .null, "severity": .string(severity.rawValue),
            "message": .string(message), "fix": .string(fix), "device": device.map { .string($0) } ?? .null,
        ])
    }
}

extension Diagnosis.Device {
    /// `{fingerprint, kind, valid, lastAcceptedVersion, upToDate}`.
    public var json: JSONValue {
        .object([
            "fingerprint": .string(fingerprint.value), "kind": .string(kind.rawValue), "valid": .bool(valid),
            "lastAcceptedVersion": lastAcceptedVersion.map { .number(Double($0)) } ?? .null,
            "upToDate": .bool(upToDate),
        ])
    }
}

extension AudienceRefreshed {
    /// The answer to `POST /v1/activities/{id}/audience/refresh`.
    public var json: JSONValue {
        .object([
            "activityId": .string(activityId), "joined": .number(Double(joined)), "members": .number(Double(members)),
            "destinations": .number(Double(destinations)),
        ])
    }
}
