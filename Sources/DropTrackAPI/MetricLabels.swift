extension APIRouter {
    // Metric labels come only from closed sets: a client picks the method and the path, and every distinct label
    // value would be a series kept for the life of the process and written out on every scrape.

    /// The methods the metrics name; any other is counted as `other`.
    static let methodLabels: Set<String> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

    /// The `method` label of a request: its method if standard, else `other`.
    static func methodLabel(_ method: String) -> String { methodLabels.contains(method) ? method : "other" }

    /// Every route `route(_:)` names itself: the route table's templates and `unmatched`.
    static let routeTemplates: Set<String> = routes.templates.union(["unmatched"])
}
