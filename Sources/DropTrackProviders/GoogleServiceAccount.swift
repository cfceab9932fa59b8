import DropTrackContract
import DropTrackCrypto
import Foundation

/// A Google service-account key file: what the FCM client signs its OAuth2 assertions with.
public struct GoogleServiceAccount: Sendable {
    /// `project_id`: the Firebase project the messages go to.
    public var projectID: String
    /// `private_key_id`: the JWT `kid`.
    public var privateKeyID: String
    /// `client_email`: the JWT `iss`.
    public var clientEmail: String
    /// `token_uri`: where the assertion is exchanged for an access token.
    public var tokenURI: String
    /// The RSA key from `private_key`.
    public var privateKey: PrivateKey

    /// Reads the JSON, naming any missing or malformed field.
    public init(json: Data, source: String = "the service-account file") throws(ServiceAccountError) {
        guard let object = try? JSONValue.parse(json), object.objectValue != nil else {
            throw ServiceAccountError(
                field: nil,
                "\(source) is not a JSON object; download the key from Firebase console → Project settings → Service accounts"
            )
        }
        func field(_ name: String) throws(ServiceAccountError) -> String {
            guard let value = object[name] else {
                throw ServiceAccountError(field: name, "\(source) has no \"\(name)\"")
            }
            guard let text = value.stringValue, !text.isEmpty else {
                throw ServiceAccountError(field: name, "\"\(name)\" in \(source) must be a non-empty string")
            }
            return text
        }
        let type = try field("type")
        guard type == "service_account" else {
            throw ServiceAccountError(
                field: "type", "\"type\" in \(source) is \"\(type)\"; a service-account key says \"service_account\"")
        }
        projectID = try field("project_id")
        privateKeyID = try field("private_key_id")
        clientEmail = try field("client_email")
        guard clientEmail.contains("@") else {
            throw ServiceAccountError(field: "client_email", "\"client_email\" in \(source) is not an email address")
        }
        tokenURI = try field("token_uri")
        guard let url = URL(string: tokenURI), url.scheme == "https", url.host != nil else {
            throw ServiceAccountError(field: "token_uri", "\"token_uri\" in \(source) must be an https URL")
        }
        let pem = try field("private_key")
        do {
            privateKey = try PrivateKey(pem: Data(pem.utf8), expected: .rs256, source: "\"private_key\" in \(source)")
        } catch {
            throw ServiceAccountError(field: "private_key", "\(error)")
        }
    }

    /// Reads a key file, naming it in errors.
    public init(file path: String) throws(ServiceAccountError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServiceAccountError(field: nil, "cannot read service-account file \(path)")
        }
        try self.init(json: data, source: "service-account file \(path)")
    }

    /// A service-account document (for `keys dev` and tests).
    public static func document(
        projectID: String, privateKeyID: String, clientEmail: String, tokenURI: String, privateKeyPEM: String
    ) -> [UInt8] {
        JSONValue.object([
            "type": .string("service_account"), "project_id": .string(projectID),
            "private_key_id": .string(privateKeyID), "private_key": .string(privateKeyPEM),
            "client_email": .string(clientEmail), "client_id": .string("100000000000000000000"),
            "auth_uri": .string("https://accounts.google.com/o/oauth2/auth"), "token_uri": .string(tokenURI),
            "universe_domain": .string("googleapis.com"),
        ]).serialized()
    }
}

/// A service-account file that cannot be used, naming the field.
public struct ServiceAccountError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The JSON field at fault, when one is.
    public var field: String?
    /// What is wrong and how to fix it.
    public var message: String

    public init(field: String?, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { message }
}
