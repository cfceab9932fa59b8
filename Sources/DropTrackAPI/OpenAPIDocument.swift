/// The OpenAPI 3.1 description of the API (`Sources/DropTrackAPI/openapi.json`), built into the
/// binary so `/openapi.json` serves the very file the repository holds.
public enum OpenAPIDocument {
    /// The document's bytes.
    public static var bytes: [UInt8] { PackageResources.openapi_json }
}
