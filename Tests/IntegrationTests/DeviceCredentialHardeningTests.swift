import DropTrackContract
import DropTrackCore
import DropTrackCrypto
import DropTrackModel
import DropTrackTesting
import Foundation
import Testing

/// The credential with its signature swapped for its twin (r, n−s).
func twinOf(_ credential: String) throws -> String {
    let pieces = credential.split(separator: ".").map(String.init)
    let signature = try #require(Base64URL.decode(pieces[2]))
    return pieces[0] + "." + pieces[1] + "." + Base64URL.encode(ECDSASignature.twin(signature))
}

/// Device credentials a server can take back: one encoding per credential (low s).
@Suite("Device credentials: one encoding each, and taken back by key rotation or per user")
struct DeviceCredentialHardeningTests {
    @Test("the twin (r, n−s) of a valid credential is refused with credential_high_s; the server mints low-s only")
    func lowSOnly() throws {
        let server = try ServerHarness(deviceKeys: true)
        defer { server.stop() }
        let path = "/v1/devices/d1/activities"
        let backend = try server.credential()
        #expect(try server.call("GET", path, key: backend).status == 200)
        let twin = try twinOf(backend)
        let refused = try server.call("GET", path, key: twin)
        #expect(refused.status == 401 && refused.errorCode == "credential_high_s", "\(refused.text)")
        #expect(refused.body["error"]?["message"]?.stringValue?.contains("n − s") == true)
        #expect(refused.headers["www-authenticate"] == #"Bearer error="invalid_token""#)
        for index in 0..<64 {
            let minted = try server.call("POST", "/v1/device-credentials", #"{"userId":"u\#(index)","ttlSeconds":60}"#)
            let credential = try #require(minted.body["credential"]?.stringValue)
            let signature = try #require(Base64URL.decode(credential.split(separator: ".")[2]))
            #expect(ECDSASignature.isLowS(signature), "minted credential \(index)")
            if index == 0 {
                #expect(try server.call("GET", path, key: credential).status == 200)
                #expect(try server.call("GET", path, key: try twinOf(credential)).errorCode == "credential_high_s")
            }
        }
    }
}

extension ServerHarness {
    /// `POST /v1/device-credentials` for `user` with API key `key`: the credential.
    func mintCredential(for user: String, key: String) throws -> String {
        let minted = try call("POST", "/v1/device-credentials", #"{"userId":"\#(user)","ttlSeconds":600}"#, key: key)
        #expect(minted.status == 201, "\(minted.text)")
        return try #require(minted.body["credential"]?.stringValue)
    }

    /// What a device call with `credential` answers: 200, or the refusal's code.
    func deviceCall(_ credential: String) throws -> String {
        let answer = try call("GET", "/v1/devices/d1/activities", key: credential)
        return answer.status == 200 ? "200" : "\(answer.status) \(answer.errorCode ?? answer.text)"
    }
}

extension DeviceCredentialHardeningTests {
    @Test(
        "a credential minted before rotate-key is refused after it, naming the fix; --keep-old keeps it; re-adding the app does not revive it",
        arguments: StoreEngine.allCases)
    func rotateKeyRevokes(engine: StoreEngine) throws {
        let replicas = ConfigReplicas()
        defer { replicas.remove() }
        let store = try engine.make()
        let keyA = try replicas.apps(["add", "--id", "app1"])
        let kid = try replicas.apps(["device-key", "rotate", "--app", "app1"])
        let first = try replicas.replica(store: store, deviceKeys: true)
        defer { first.stop() }
        let mintedWithA = try first.mintCredential(for: "uA", key: keyA)
        #expect(try first.deviceCall(mintedWithA) == "200")

        let keyB = try replicas.apps(["rotate-key", "--id", "app1", "--keep-old"])
        let keptOld = try replicas.replica(store: store, deviceKeys: true)
        defer { keptOld.stop() }
        #expect(try keptOld.deviceCall(mintedWithA) == "200", "--keep-old: key A works, so do its credentials")
        let mintedWithB = try keptOld.mintCredential(for: "uA", key: keyB)

        let keyC = try replicas.apps(["rotate-key", "--id", "app1"])
        let rotated = try replicas.replica(store: store, deviceKeys: true)
        defer { rotated.stop() }
        let refused = try rotated.call("GET", "/v1/devices/d1/activities", key: mintedWithA)
        #expect(refused.status == 401 && refused.errorCode == "credential_key_rotated", "\(refused.text)")
        #expect(refused.body["error"]?["message"]?.stringValue?.contains("mint a new one") == true)
        #expect(refused.headers["www-authenticate"] == #"Bearer error="invalid_token""#)
        #expect(try rotated.deviceCall(mintedWithB) == "401 credential_key_rotated")
        #expect(try rotated.deviceCall(try rotated.mintCredential(for: "uA", key: keyC)) == "200")

        // The backend's own key: kfp is checked when given, and may be left out.
        let backend = try #require(rotated.deviceKeys["app1"])
        let exp = rotated.clock.unixSeconds() + 600
        func signed(_ claims: [String: String]) throws -> String {
            try deviceCredential(backend, kid: "app1-backend", exp: exp, textClaims: claims)
        }
        #expect(
            try rotated.deviceCall(try signed(["kfp": Fingerprint(of: keyA).value])) == "401 credential_key_rotated")
        #expect(try rotated.deviceCall(try signed(["kfp": Fingerprint(of: keyC).value])) == "200")
        #expect(try rotated.deviceCall(try signed([:])) == "200")
        #expect(
            try rotated.deviceCall(try signed(["kfp": keyC])) == "401 credential_malformed",
            "a key, not its fingerprint")
        // DropTrack's own key signed it without kfp: minted before the claim, so refused.
        let held = try PrivateKey(pemFile: replicas.directory + "/app1-device-\(kid).p8", expected: .es256)
        let unnamed = try deviceCredential(held, kid: kid, exp: exp)
        #expect(try rotated.deviceCall(unnamed) == "401 credential_key_unnamed")

        // Removed and added again, with the old signing key registered once more: key C is not the new app's.
        let mintedWithC = try rotated.mintCredential(for: "uA", key: keyC)
        try replicas.apps(["remove", "--id", "app1"])
        let keyD = try replicas.apps(["add", "--id", "app1"])
        let publicHalf = replicas.directory + "/old.pem"
        try held.publicKeyPEM.write(toFile: publicHalf, atomically: true, encoding: .utf8)
        try replicas.apps(["device-key", "add", "--app", "app1", "--kid", kid, "--public-key", publicHalf])
        let readded = try replicas.replica(store: store, deviceKeys: true)
        defer { readded.stop() }
        #expect(try readded.deviceCall(mintedWithC) == "401 credential_key_rotated")
        #expect(
            try readded.deviceCall(
                try deviceCredential(held, kid: kid, exp: exp, textClaims: ["kfp": Fingerprint(of: keyD).value]))
                == "200")
    }

    @Test(
        "revoke-user refuses that user's earlier credentials on every replica; newer ones and other users' work",
        arguments: StoreEngine.allCases)
    func revokeUser(engine: StoreEngine) throws {
        let replicas = ConfigReplicas()
        defer { replicas.remove() }
        let (store, spec) = try engine.makeShared()
        let key = try replicas.apps(["add", "--id", "app1"])
        try replicas.apps(["device-key", "rotate", "--app", "app1"])
        let one = try replicas.replica(store: store, deviceKeys: true)
        defer { one.stop() }
        let other = try replicas.replica(store: store, deviceKeys: true)
        defer { other.stop() }
        let older = try one.mintCredential(for: "uA", key: key)
        let otherUser = try one.mintCredential(for: "uB", key: key)
        #expect(try other.deviceCall(older) == "200")

        let notBefore: Int64
        if let spec {
            // The operator's way: the command line, straight into the store the replicas share.
            notBefore = try #require(
                Int64(try replicas.apps(["revoke-user", "--app", "app1", "--user", "uA", "--store", spec])))
        } else {
            // A memory store lives in the server: the backend's way, with the API key.
            let answer = try one.call("POST", "/v1/users/uA/revoke-credentials", key: key)
            #expect(answer.status == 200 && answer.body["userId"]?.stringValue == "uA", "\(answer.text)")
            notBefore = try #require(answer.body["notBefore"]?.numberValue.map { Int64($0) })
        }
        #expect(abs(notBefore - one.clock.unixSeconds()) <= 2)
        for replica in [one, other] {
            let refused = try replica.call("GET", "/v1/devices/d1/activities", key: older)
            #expect(refused.status == 401 && refused.errorCode == "credential_revoked", "\(refused.text)")
            #expect(refused.body["error"]?["message"]?.stringValue?.contains("mint a new one") == true)
            #expect(try replica.deviceCall(otherUser) == "200", "another user's credential")
        }
        let newer = try other.mintCredential(for: "uA", key: key)
        #expect(try one.deviceCall(newer) == "200", "minted after the revocation, even within its second")
        // The backend's own credentials for the user: from notBefore on, and only with an iat.
        let backend = try #require(one.deviceKeys["app1"])
        func signed(iat: Int64?) throws -> String {
            try deviceCredential(
                backend, kid: "app1-backend", exp: one.clock.unixSeconds() + 600,
                extraClaims: iat.map { ["iat": $0] } ?? [:])
        }
        #expect(try one.deviceCall(try signed(iat: notBefore)) == "200")
        #expect(try one.deviceCall(try signed(iat: notBefore - 1)) == "401 credential_revoked")
        #expect(try one.deviceCall(try signed(iat: nil)) == "401 credential_revoked", "no iat: cannot show it is newer")
        let byDevice = try one.call("POST", "/v1/users/uA/revoke-credentials", key: newer)
        #expect(byDevice.status == 403 && byDevice.errorCode == "device_not_allowed")
        let badUser = try one.call("POST", "/v1/users/a%20b/revoke-credentials", key: key)
        #expect(badUser.status == 400 && badUser.errorField == "userId", "\(badUser.text)")
    }
}
