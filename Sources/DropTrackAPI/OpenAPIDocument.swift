import DropTrackContract

/// The OpenAPI 3.1 description of the API (`Sources/DropTrackAPI/openapi.json`), built into the
/// binary so `/openapi.json` serves the very file the repository holds.
public enum OpenAPIDocument {
    /// The file's bytes.
    public static var bytes: [UInt8] { PackageResources.openapi_json }

    /// What `/openapi.json` serves: the file, as it is while it describes every route and method of the table
    /// (a test holds it to that). A route the file does not describe yet still appears, with an operation made
    /// from the table (its parameters and who may call it), so the document never hides an endpoint.
    public static let served: [UInt8] = document(for: APIRouter.routes)

    /// The file with an operation added for each route and method of `table` it lacks.
    public static func document(for table: RouteTable, file: [UInt8] = bytes) -> [UInt8] {
        guard case .object(var document)? = try? JSONValue.parse(bytes: file),
            case .object(var paths)? = document["paths"]
        else { return file }
        let missing = undocumented(in: table, paths: paths)
        guard !missing.isEmpty else { return file }
        for (route, method) in missing {
            var item = paths[route.template]?.objectValue ?? [:]
            item[method.lowercased()] = operation(route, method: method)
            paths[route.template] = .object(item)
        }
        document["paths"] = .object(paths)
        return JSONValue.object(document).serialized()
    }

    /// The routes and methods of `table` with no operation in the document's `paths`.
    public static func undocumented(in table: RouteTable, paths: [String: JSONValue]) -> [(Route, String)] {
        table.routes.flatMap { route in
            route.methods.keys.sorted().filter { method in
                // HEAD is GET without a body; OpenAPI documents it only through GET.
                method != "HEAD" && paths[route.template]?[method.lowercased()] == nil
            }.map { (route, $0) }
        }
    }

    /// An operation made from the table alone: the path's parameters, who may call it, and the error shape.
    static func operation(_ route: Route, method: String) -> JSONValue {
        let access = route.methods[method] ?? .apiKey
        let callers: String =
            switch access {
            case .open: "no credential"
            case .apiKey: "the app's API key"
            case .apiKeyOrDevice: "the app's API key, or a device credential for its own user"
            }
        var operation: [String: JSONValue] = [
            "summary": .string("\(method) \(route.template)"),
            "description": .string("Not described yet. Called with \(callers)."),
            "parameters": .array(
                route.parameters.map { name in
                    .object([
                        "name": .string(name), "in": .string("path"), "required": .bool(true),
                        "schema": .object(["type": .string("string")]),
                    ])
                }),
            "responses": .object([
                "default": .object([
                    "description": .string("An answer, or an error naming what to fix."),
                    "content": .object([
                        "application/json": .object([
                            "schema": .object(["$ref": .string("#/components/schemas/Error")])
                        ])
                    ]),
                ])
            ]),
        ]
        if access == .open { operation["security"] = .array([]) }
        return .object(operation)
    }
}
