import DropTrackAPI
import DropTrackContract
import DropTrackTesting
import Foundation
import Testing

@testable import DropTrackAPI

@Suite("One route table: the router, the metric labels, the device rules and the OpenAPI document come from it")
struct RouteTableTests {
    static func paths(_ document: [UInt8]) throws -> [String: JSONValue] {
        try #require(try JSONValue.parse(bytes: document)["paths"]?.objectValue)
    }

    @Test("openapi.json describes every route and method of the table and nothing else, so it is served as it is")
    func documentMatchesTable() throws {
        let paths = try Self.paths(OpenAPIDocument.bytes)
        let missing = OpenAPIDocument.undocumented(in: APIRouter.routes, paths: paths)
        #expect(missing.isEmpty, "described nowhere: \(missing.map { "\($0.1) \($0.0.template)" })")
        let templates = APIRouter.routes.templates
        let extra = paths.keys.filter { !templates.contains($0) }
        #expect(extra.isEmpty, "openapi.json describes paths no route serves: \(extra)")
        for (template, item) in paths {
            let documented = Set(
                (item.objectValue ?? [:]).keys.filter { ["get", "post", "put", "patch", "delete"].contains($0) })
            let served = Set(
                APIRouter.routes.routes.first { $0.template == template }?.methods.keys
                    .filter { $0 != "HEAD" }.map { $0.lowercased() } ?? [])
            #expect(documented == served, "\(template): documented \(documented.sorted()), served \(served.sorted())")
        }
        #expect(OpenAPIDocument.served == OpenAPIDocument.bytes)
    }

    @Test("a route added to the table is matched, labelled, open to devices as marked, and in the served document")
    func addedRouteAppearsEverywhere() throws {
        let added = Route("/v1/shipments/{shipmentId}/notes", ["POST", "GET"], device: ["GET"])
        let table = RouteTable(APIRouter.routes.routes + [added])
        let parts = ["v1", "shipments", "S-1", "notes"]
        #expect(APIRouter.routes.route(for: parts) == nil)
        #expect(table.route(for: parts)?.template == added.template)
        #expect(!APIRouter.routes.templates.contains(added.template) && table.templates.contains(added.template))
        #expect(table.deviceRoutes[added.template] == ["GET"])

        let paths = try Self.paths(OpenAPIDocument.document(for: table))
        let item = try #require(paths[added.template]?.objectValue)
        #expect(Set(item.keys) == ["get", "post"])
        #expect(item["get"]?["parameters"]?.arrayValue?.first?["name"]?.stringValue == "shipmentId")
        #expect(item["get"]?["description"]?.stringValue?.contains("device credential") == true)
        #expect(item["post"]?["description"]?.stringValue?.contains("device credential") == false)
        // Everything the file already says is kept.
        #expect(paths.count == (try Self.paths(OpenAPIDocument.bytes)).count + 1)
    }

    @Test("the most specific template wins: /v1/tokens/fcm is not a fingerprint, and each path names one route")
    func specificity() {
        #expect(APIRouter.routes.route(for: ["v1", "tokens", "fcm"])?.template == "/v1/tokens/fcm")
        #expect(APIRouter.routes.route(for: ["v1", "tokens", "9f86d081"])?.template == "/v1/tokens/{fingerprint}")
        #expect(
            APIRouter.routes.route(for: ["v1", "activities", "a", "audience", "refresh"])?.template
                == "/v1/activities/{id}/audience/refresh")
        #expect(APIRouter.routes.route(for: ["v1", "activities", "a", "audience"]) == nil)
        #expect(APIRouter.routes.route(for: ["healthz"])?.methods["GET"] == .open)
        #expect(APIRouter.template(["v1", "activities", "a"]).1 == ["GET", "PATCH"])
        #expect(APIRouter.template(["healthz"]).0 == nil, "open routes are not /v1 templates")
        // No two routes of the table fill the same paths with the same number of fixed words.
        let routes = APIRouter.routes.routes
        for (index, one) in routes.enumerated() {
            for other in routes[(index + 1)...] {
                let probe = one.segments.map { segment -> String in
                    if case .literal(let word) = segment { word } else { "x" }
                }
                #expect(
                    !(other.matches(probe) && other.literalCount == one.literalCount),
                    "\(one.template) and \(other.template) are ambiguous")
            }
        }
    }
}
