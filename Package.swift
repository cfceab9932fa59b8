// swift-tools-version:6.2
// The targets below are the architecture: each layer is one target, and the dependency arrows
// between them are the only imports allowed (see DESIGN.md and the README's tour). Tools 6.2: the
// contract's generics need `SendableMetatype`, which Swift 6.2 introduced.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// The look-alikes of Apple's frameworks and of Expo's module API, and the Expo module's iOS side, which
// only builds against ExpoModulesCore (its CocoaPods pod, or the look-alike), exist only when this
// manifest is read on Linux. Xcode, and `swift build` on a Mac, never see them: an app that adds this
// package resolves DropTrackContract, DropTrackLive and DropTrackWidgets over the real frameworks, and
// no scheme can pull a look-alike into an iOS build.
#if os(Linux)
    let onLinux = true
#else
    let onLinux = false
#endif

/// The look-alike that stands in for an Apple framework (see the look-alike targets below); nothing
/// where the manifest is not read on Linux, and linked on Linux only.
func lookAlike(_ name: String) -> [Target.Dependency] {
    onLinux ? [.target(name: name, condition: .when(platforms: [.linux]))] : []
}

let package = Package(
    name: "droptrack",
    // Constrains Apple platforms only: Expo's default deployment target, which the CocoaPods pods declare too.
    // What needs ActivityKit is marked iOS 16.1 or 16.2 and guarded; checks/ios_typecheck.py type-checks the
    // client targets at 15.1 against an iOS SDK.
    platforms: [.iOS("15.1")],
    products: [
        .executable(name: "droptrack", targets: ["droptrack"]),
        .executable(name: "droptrack-dev", targets: ["droptrack-dev"]),
        .library(name: "DropTrackContract", targets: ["DropTrackContract"]),
        .library(name: "DropTrackWidgets", targets: ["DropTrackWidgets"]),
        .library(name: "DropTrackLive", targets: ["DropTrackLive"]),
    ],
    targets: [
        // C libraries from Debian, one system-library target each, each imported by exactly one Swift target.
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CNGHTTP2", path: "Sources/CNGHTTP2", pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // pkgConfig matters here: libpq's headers live in a subdirectory (-I/usr/include/postgresql).
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // Foundation and ActivityKit's `ActivityAttributes` only: shared with the iOS app and widget and the Android
        // team's vectors.
        .target(name: "DropTrackContract", dependencies: lookAlike("ActivityKitShim"), swiftSettings: strict),
        // The delivery Live Activity's widget (Lock Screen and Dynamic Island) in SwiftUI and WidgetKit; its
        // button runs DropTrackLive's `DeliveryActionIntent`, which the widget extension and the app both compile.
        .target(
            name: "DropTrackWidgets",
            dependencies: ["DropTrackContract", "DropTrackLive"] + lookAlike("ActivityKitShim")
                + lookAlike("SwiftUIShim") + lookAlike("WidgetKitShim") + lookAlike("AppIntentsShim")
                + lookAlike("AppIntentsSwiftUIShim"),
            swiftSettings: strict),
        // The app's half of the loop, shipped inside iOS apps: registers ActivityKit's tokens and device facts
        // with the server, reports lifecycle changes and reconciles, behind the `LiveActivityHost` (ActivityKit)
        // and `DropTrackDeviceAPI` (the device routes) seams. The contract only: no server target.
        .target(
            name: "DropTrackLive",
            dependencies: ["DropTrackContract", "DropTrackSHA256"] + lookAlike("ActivityKitShim")
                + lookAlike("AppIntentsShim"),
            swiftSettings: strict),
        // SHA-256 in plain Swift: fingerprints of secrets, in the server and in the iOS library alike.
        .target(name: "DropTrackSHA256", swiftSettings: strict),
        // The model every server layer speaks: typed, validated ids, device tokens and fingerprints, the push
        // enums, and the refusal with its closed set of codes. Nothing below it but SHA-256 (for fingerprints).
        .target(name: "DropTrackModel", dependencies: ["DropTrackSHA256"], swiftSettings: strict),
        // Kernels every layer uses: injected clock, structured logs, CLI progress.
        .target(name: "DropTrackCore", dependencies: ["DropTrackSHA256"], swiftSettings: strict),
        // APNs and FCM wire models, reason → remedy tables, limits. No I/O.
        .target(
            name: "DropTrackWire",
            dependencies: ["DropTrackModel", "DropTrackContract", "DropTrackCore"] + lookAlike("ActivityKitShim"),
            swiftSettings: strict),
        // The doctor: silent-failure rules keyed by the trap catalog (docs/reference/traps.md), its context, the app checklist.
        .target(
            name: "DropTrackDoctor",
            dependencies: ["DropTrackModel", "DropTrackWire", "DropTrackContract", "DropTrackCore"],
            resources: [.embedInCode("Catalog/traps.md")], swiftSettings: strict),
        // OpenSSL: keys, ES256/RS256 JWTs, certificates, TLS sessions.
        .target(name: "DropTrackCrypto", dependencies: ["COpenSSL", "DropTrackCore"], swiftSettings: strict),
        // HTTP/2 client and server on libnghttp2 over the TLS sessions above.
        .target(
            name: "DropTrackHTTP2", dependencies: ["CNGHTTP2", "DropTrackCrypto", "DropTrackCore"],
            swiftSettings: strict),
        // HTTP/1.1 server with Server-Sent Events on libmicrohttpd: DropTrack's JSON REST API and event stream.
        .target(name: "DropTrackHTTP1", dependencies: ["CMicroHTTPD", "DropTrackCore"], swiftSettings: strict),
        // Outbound HTTP to URLs that configuration chose (webhooks) on libcurl, one thread for every attempt:
        // a hard deadline, no redirects, no decoding, a capped answer, the connected address checked.
        .target(name: "DropTrackOutbound", dependencies: ["CCurl", "DropTrackCore"], swiftSettings: strict),
        // APNs and FCM clients.
        .target(
            name: "DropTrackProviders",
            dependencies: [
                "DropTrackModel", "DropTrackWire", "DropTrackCrypto", "DropTrackHTTP2", "DropTrackCore",
                "DropTrackContract",
            ]
                + lookAlike("ActivityKitShim"),
            swiftSettings: strict),
        // Storage: the protocol, and the memory, SQLite and PostgreSQL engines.
        .target(
            name: "DropTrackStore",
            dependencies: ["DropTrackModel", "CSQLite", "CLibPQ", "DropTrackContract", "DropTrackCore"],
            swiftSettings: strict),
        // The server's core, the domain: registry, mappers, outbox worker, retries, budget, scheduler. It sends
        // through the `PushTransport` protocol and knows no transport, no crypto and no HTTP; it asks the doctor
        // about devices through the `DeviceExaminer` protocol and does not import it.
        .target(
            name: "DropTrackDispatch",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackSHA256", "DropTrackWire",
                "DropTrackStore",
            ],
            swiftSettings: strict),
        // The HTTP API over the dispatch core: routes, keys, rate limits, SSE, metrics, OpenAPI document.
        .target(
            name: "DropTrackAPI",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackSHA256", "DropTrackWire", "DropTrackDoctor",
                "DropTrackStore", "DropTrackDispatch", "DropTrackHTTP1",
            ],
            resources: [.embedInCode("openapi.json")], swiftSettings: strict),
        // The operator console under `serve` at /console: session sign-in with an app's API key, server-rendered
        // pages of activities, diagnosis, tokens, the live event stream and plots, its files built into the binary.
        .target(
            name: "DropTrackConsole",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackDoctor", "DropTrackStore", "DropTrackDispatch",
                "DropTrackHTTP1", "DropTrackAPI", "DropTrackWire", "DropTrackSHA256",
            ],
            resources: [.embedInCode("Files/console.css"), .embedInCode("Files/console.js")],
            swiftSettings: strict),
        // The composition root: builds the store, the provider transports and the API from the configuration, and
        // owns the process's services (started in order, stopped in reverse within one deadline).
        .target(
            name: "DropTrackRuntime",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackWire", "DropTrackCrypto", "DropTrackProviders",
                "DropTrackStore", "DropTrackDispatch", "DropTrackHTTP1", "DropTrackAPI", "DropTrackConsole",
                "DropTrackOutbound",
            ],
            swiftSettings: strict),
        // The whole loop on one machine: development keys, emulators, simulated phones, the server and
        // its dashboard, driven from the browser.
        .target(
            name: "DropTrackDemo",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackWire", "DropTrackDoctor", "DropTrackCrypto",
                "DropTrackProviders", "DropTrackEmulators", "DropTrackStore", "DropTrackDispatch", "DropTrackHTTP1",
                "DropTrackAPI", "DropTrackRuntime", "DropTrackLive",
            ],
            resources: [
                .embedInCode("Dashboard/index.html"), .embedInCode("Dashboard/dashboard.css"),
                .embedInCode("Dashboard/dashboard.js"), .embedInCode("Dashboard/dashboard-live.js"),
            ],
            swiftSettings: strict),
        // Local APNs and FCM emulators and device simulators; the simulated iPhone plays ActivityKit for DropTrackLive.
        .target(
            name: "DropTrackEmulators",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackWire", "DropTrackCrypto", "DropTrackHTTP2", "DropTrackCore",
                "DropTrackLive",
            ],
            swiftSettings: strict),
        // What both programs share: arguments, the command protocol, guidance and the environment check.
        .target(
            name: "DropTrackCLI",
            dependencies: [
                "DropTrackCore", "DropTrackWire", "DropTrackDoctor", "DropTrackProviders", "DropTrackDispatch",
                "DropTrackRuntime",
            ],
            swiftSettings: strict),
        // A crash as one JSON log line, written from the signal handler in async-signal-safe C (our own code,
        // not a system library: `serve` installs it).
        .target(name: "CCrashLine", path: "Sources/CCrashLine"),
        // `droptrack`, what production runs (and the Debian package and the image ship): the server and its
        // operator's commands. It links neither the emulators, the simulated phones, the demo nor the iOS library.
        .executableTarget(
            name: "droptrack",
            dependencies: [
                "DropTrackModel",
                "DropTrackCLI", "DropTrackContract", "DropTrackCore", "DropTrackSHA256", "DropTrackWire",
                "DropTrackDoctor", "DropTrackCrypto", "DropTrackHTTP2", "DropTrackProviders", "DropTrackStore",
                "DropTrackDispatch", "DropTrackHTTP1", "DropTrackAPI", "DropTrackRuntime", "CCrashLine",
            ],
            swiftSettings: strict),
        // `droptrack-dev`, the test rig: the demo, the APNs and FCM emulators, the benchmarks, development keys.
        .executableTarget(
            name: "droptrack-dev",
            dependencies: [
                "DropTrackModel",
                "DropTrackCLI", "DropTrackContract", "DropTrackCore", "DropTrackSHA256", "DropTrackWire",
                "DropTrackCrypto", "DropTrackHTTP2", "DropTrackProviders", "DropTrackEmulators", "DropTrackDemo",
            ],
            swiftSettings: strict),

        // Tests mirror the layers: one test target per layer for its unit suites, `IntegrationTests` for the suites
        // that run the whole server, the CLI binary or the emulators end to end, and `DropTrackTesting`, a library of
        // the harnesses and fixtures they share (a regular target living under Tests/).
        .target(
            name: "DropTrackTesting",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackWire", "DropTrackDoctor", "DropTrackCrypto",
                "DropTrackHTTP2", "DropTrackProviders", "DropTrackEmulators", "DropTrackStore", "DropTrackDispatch",
                "DropTrackAPI", "DropTrackRuntime",
            ],
            path: "Tests/DropTrackTesting", swiftSettings: strict),
        .testTarget(
            name: "ContractTests",
            dependencies: ["DropTrackContract", "DropTrackWidgets", "DropTrackLive", "DropTrackTesting"]
                + lookAlike("ActivityKitShim")
                + lookAlike("SwiftUIShim") + lookAlike("WidgetKitShim"),
            swiftSettings: strict),
        .testTarget(name: "ModelTests", dependencies: ["DropTrackModel"], swiftSettings: strict),
        .testTarget(name: "CoreTests", dependencies: ["DropTrackCore", "DropTrackTesting"], swiftSettings: strict),
        .testTarget(
            name: "WireTests",
            dependencies: [
                "DropTrackModel", "DropTrackContract", "DropTrackCore", "DropTrackWire", "DropTrackTesting",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "DoctorTests",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackWire", "DropTrackDoctor", "DropTrackTesting",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CryptoTests",
            dependencies: [
                "DropTrackModel",
                "DropTrackCore", "DropTrackSHA256", "DropTrackCrypto", "DropTrackProviders", "DropTrackTesting",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "HTTP2Tests", dependencies: ["DropTrackCrypto", "DropTrackHTTP2", "DropTrackTesting"],
            swiftSettings: strict),
        .testTarget(name: "HTTP1Tests", dependencies: ["DropTrackHTTP1", "DropTrackTesting"], swiftSettings: strict),
        .testTarget(
            name: "OutboundTests", dependencies: ["DropTrackOutbound", "DropTrackCore", "DropTrackTesting"],
            swiftSettings: strict),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "DropTrackModel", "DropTrackContract", "DropTrackCore", "DropTrackStore", "DropTrackTesting",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "DispatchTests",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackWire", "DropTrackStore", "DropTrackDispatch",
                "DropTrackTesting",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "EmulatorTests",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackWire", "DropTrackEmulators", "DropTrackTesting",
            ],
            swiftSettings: strict),
        // DropTrackLive: unit suites over in-memory seams, and suites against the whole server with the simulated iPhone.
        .testTarget(
            name: "LiveTests",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackDispatch", "DropTrackLive", "DropTrackEmulators",
                "DropTrackTesting", "DropTrackWidgets",
            ] + lookAlike("ActivityKitShim") + lookAlike("SwiftUIShim") + lookAlike("WidgetKitShim")
                + lookAlike("AppIntentsShim") + lookAlike("AppIntentsSwiftUIShim"),
            swiftSettings: strict),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "DropTrackModel",
                "DropTrackContract", "DropTrackCore", "DropTrackWire", "DropTrackDoctor", "DropTrackCrypto",
                "DropTrackHTTP2", "DropTrackProviders", "DropTrackEmulators", "DropTrackStore", "DropTrackDispatch",
                "DropTrackHTTP1", "DropTrackAPI", "DropTrackConsole", "DropTrackRuntime", "DropTrackDemo",
                "DropTrackTesting", "DropTrackLive",
            ],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)

// Linux only (see `onLinux` above).
if onLinux {
    package.targets += [
        // Look-alikes of Apple's ActivityKit, SwiftUICore, SwiftUI and WidgetKit, with the signatures of the
        // iOS 26.2 SDK's interfaces, so the contract, the app's and the widget's code compile and run their
        // tests on Linux. Sources import the real framework wherever it exists (`#if canImport(ActivityKit)`)
        // and these only in its absence; checks/lookalike_api.py holds them against their lists in
        // Tests/LookalikeAPI/ and, given an SDK, against Apple's files.
        .target(name: "ActivityKitShim", swiftSettings: strict),
        .target(name: "SwiftUICoreShim", swiftSettings: strict),
        .target(name: "SwiftUIShim", dependencies: ["SwiftUICoreShim"], swiftSettings: strict),
        .target(
            name: "WidgetKitShim", dependencies: ["ActivityKitShim", "SwiftUICoreShim", "SwiftUIShim"],
            swiftSettings: strict),
        // App Intents (an interactive Live Activity's intent), and its overlay for SwiftUI (`Button(intent:)`),
        // which an app gets by importing both; `LocalizedStringResource` is Foundation's on iOS and the
        // ActivityKit look-alike's here.
        .target(name: "AppIntentsShim", dependencies: ["ActivityKitShim"], swiftSettings: strict),
        .target(
            name: "AppIntentsSwiftUIShim", dependencies: ["AppIntentsShim", "SwiftUICoreShim", "SwiftUIShim"],
            swiftSettings: strict),
        // The same for Expo's Swift module API (expo-modules-core), so the Expo module's iOS side compiles and its
        // tests can call its functions by name; that recording is a test aid, not Expo behaviour.
        .target(name: "ExpoModulesCoreShim", swiftSettings: strict),
        // The Expo module's iOS side (clients/expo/ios): JavaScript's calls on DropTrackLive, over Expo's module
        // API. Apps get it from its CocoaPods pod (clients/expo/ios/DropTrackExpo.podspec), with ExpoModulesCore.
        .target(
            name: "DropTrackExpo",
            dependencies: ["DropTrackLive", "DropTrackContract"] + lookAlike("ExpoModulesCoreShim")
                + lookAlike("ActivityKitShim"),
            path: "clients/expo/ios", exclude: ["DropTrackExpo.podspec"], swiftSettings: strict),
        // The Expo module's iOS side: its conversions, its credential relay, and a run against the whole server.
        .testTarget(
            name: "ExpoModuleTests",
            dependencies: [
                "DropTrackModel", "DropTrackDispatch",
                "DropTrackExpo", "DropTrackContract", "DropTrackCore", "DropTrackLive", "DropTrackEmulators",
                "DropTrackTesting",
            ] + lookAlike("ExpoModulesCoreShim") + lookAlike("ActivityKitShim"),
            swiftSettings: strict),
    ]
}
