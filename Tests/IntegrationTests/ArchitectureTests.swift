import DropTrackTesting
import Foundation
import Testing

/// The architecture as `Package.swift` declares it, held against the sources.
@Suite("Architecture")
struct ArchitectureTests {
    /// Modules every target may import without declaring them: the toolchain's, and Apple's frameworks, which
    /// sources import only where they exist (`#if canImport`).
    static let toolchain: Set<String> = [
        "Foundation", "FoundationNetworking", "Dispatch", "Synchronization", "Glibc", "Testing", "XCTest",
        "ActivityKit", "SwiftUI", "SwiftUICore", "WidgetKit", "ExpoModulesCore", "AppIntents",
        // Apple-only, imported under `#if canImport(UIKit)` (the Expo module opens the app's Settings page).
        "UIKit",
    ]

    /// Apple's frameworks, and Expo's, that have a look-alike here (`<name>Shim`).
    static let lookAlikeFrameworks = [
        "ActivityKit", "SwiftUICore", "SwiftUI", "WidgetKit", "ExpoModulesCore", "AppIntents",
    ]

    /// Each target's declared dependencies, read from `Package.swift`.
    static func declaredDependencies() throws -> [String: Set<String>] {
        let manifest = try String(contentsOfFile: repositoryRoot + "/Package.swift", encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        let pattern = try NSRegularExpression(
            // A target's text ends at its swiftSettings, or where the next target begins (a C target has none).
            pattern:
                #"\.(?:target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"((?:(?!\.(?:target|executableTarget|testTarget|systemLibrary)\().)*?)swiftSettings"#,
            options: [.dotMatchesLineSeparators])
        let range = NSRange(manifest.startIndex..., in: manifest)
        for match in pattern.matches(in: manifest, range: range) {
            let name = String(manifest[Range(match.range(at: 1), in: manifest)!])
            let rest = String(manifest[Range(match.range(at: 2), in: manifest)!])
            let quoted = try NSRegularExpression(pattern: #""([A-Za-z0-9]+)""#)
            let names = quoted.matches(in: rest, range: NSRange(rest.startIndex..., in: rest)).map {
                String(rest[Range($0.range(at: 1), in: rest)!])
            }
            targets[name] = Set(names)
        }
        return targets
    }

    /// The folder of each target that declares one (`path:`), relative to the repository.
    static func declaredPaths() throws -> [String: String] {
        let manifest = try String(contentsOfFile: repositoryRoot + "/Package.swift", encoding: .utf8)
        let target = try NSRegularExpression(
            // A target's text ends at its swiftSettings, or where the next target begins (a C target has none).
            pattern:
                #"\.(?:target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"((?:(?!\.(?:target|executableTarget|testTarget|systemLibrary)\().)*?)swiftSettings"#,
            options: [.dotMatchesLineSeparators])
        let path = try NSRegularExpression(pattern: #"path:\s*"([^"]+)""#)
        var paths: [String: String] = [:]
        for match in target.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            let rest = String(manifest[Range(match.range(at: 2), in: manifest)!])
            guard let found = path.firstMatch(in: rest, range: NSRange(rest.startIndex..., in: rest)) else { continue }
            paths[String(manifest[Range(match.range(at: 1), in: manifest)!])] = String(
                rest[Range(found.range(at: 1), in: rest)!])
        }
        return paths
    }

    /// The modules a folder's Swift files import.
    static func imports(under folder: String) throws -> [String: Set<String>] {
        var found: [String: Set<String>] = [:]
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                    words[..<index].allSatisfy({ ["@testable", "internal", "public", "package"].contains($0) })
                else { continue }
                found[words[index + 1], default: []].insert(file)
            }
        }
        return found
    }

    @Test("no target imports a module it does not declare")
    func importsAreDeclared() throws {
        let declared = try Self.declaredDependencies()
        let paths = try Self.declaredPaths()
        #expect(declared.count >= 15, "Package.swift was read: \(declared.keys.sorted())")
        #expect(paths["DropTrackExpo"] == "clients/expo/ios", "paths were read: \(paths)")
        for (target, dependencies) in declared {
            // Test targets, and the testing library they share, live under Tests/; the rest under Sources/,
            // unless the target names its folder (`path:`).
            let underTests = repositoryRoot + "/Tests/" + target
            let folder =
                paths[target].map { repositoryRoot + "/" + $0 }
                ?? (FileManager.default.fileExists(atPath: underTests)
                    ? underTests : repositoryRoot + "/Sources/" + target)
            for (module, files) in try Self.imports(under: folder)
            where !Self.toolchain.contains(module) && !dependencies.contains(module) {
                Issue.record(
                    "\(target) imports \(module) without declaring it (\(files.sorted().joined(separator: ", ")))")
            }
        }
    }

    @Test(
        "the look-alikes (ActivityKitShim, SwiftUICoreShim, SwiftUIShim, WidgetKitShim, ExpoModulesCoreShim, AppIntentsShim, AppIntentsSwiftUIShim) are imported only without the frameworks"
    )
    func lookAlikesOnlyWithoutTheFramework() throws {
        var offenders: [String] = []
        for folder in ["Sources", "Tests", "clients/expo/ios"] {
            let files =
                FileManager.default.enumerator(atPath: repositoryRoot + "/" + folder)?.compactMap { $0 as? String }
                ?? []
            #expect(folder != "clients/expo/ios" || !files.isEmpty, "\(folder) has the Expo module's Swift sources")
            // The look-alikes themselves import each other.
            for file in files where file.hasSuffix(".swift") && !file.split(separator: "/")[0].hasSuffix("Shim") {
                let text = try String(contentsOfFile: "\(repositoryRoot)/\(folder)/\(file)", encoding: .utf8)
                // The innermost `#if` around each line, and whether the line is in its `#else` branch.
                var conditions: [(condition: String, inElse: Bool)] = []
                for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                    if line.hasPrefix("#if ") {
                        conditions.append((String(line.dropFirst(4)), false))
                    } else if line.hasPrefix("#else"), !conditions.isEmpty {
                        conditions[conditions.count - 1].inElse = true
                    } else if line.hasPrefix("#endif"), !conditions.isEmpty {
                        conditions.removeLast()
                    } else if line.hasPrefix("import "), line.hasSuffix("Shim") {
                        let guarded =
                            conditions.last.map { innermost in
                                Self.lookAlikeFrameworks.contains {
                                    innermost.condition == (innermost.inElse ? "" : "!") + "canImport(\($0))"
                                }
                            } ?? false
                        if !guarded { offenders.append("\(folder)/\(file): \(line)") }
                    }
                }
            }
        }
        #expect(offenders.isEmpty, "import the look-alike only under `#if canImport(X) … #else`: \(offenders)")
    }

    @Test("each Debian C library is imported by exactly one Swift target, as `internal import`")
    func cLibrariesHaveOneOwner() throws {
        let manifest = try String(contentsOfFile: repositoryRoot + "/Package.swift", encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\.systemLibrary\(\s*name:\s*"([^"]+)""#)
        let libraries = pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)).map {
            String(manifest[Range($0.range(at: 1), in: manifest)!])
        }
        #expect(
            libraries.contains("CCurl") && libraries.contains("COpenSSL"), "system libraries were read: \(libraries)")
        let declared = try Self.declaredDependencies()
        for library in libraries {
            let dependents = declared.filter { $0.value.contains(library) }.keys.sorted()
            #expect(dependents.count == 1, "\(library) is a dependency of \(dependents), not of exactly one target")
            var importers: [String] = []
            for folder in ["Sources", "Tests", "clients/expo/ios"] {
                let files =
                    FileManager.default.enumerator(atPath: repositoryRoot + "/" + folder)?.compactMap { $0 as? String }
                    ?? []
                for file in files where file.hasSuffix(".swift") {
                    let text = try String(contentsOfFile: "\(repositoryRoot)/\(folder)/\(file)", encoding: .utf8)
                    for line in text.split(separator: "\n") where line.hasSuffix("import \(library)") {
                        #expect(line == "internal import \(library)", "\(folder)/\(file): \(line)")
                        importers.append("\(folder)/\(file.split(separator: "/")[0])")
                    }
                }
            }
            #expect(Set(importers).count == 1, "\(library) is imported by \(Set(importers).sorted())")
        }
    }

    @Test("the domain knows no transport: Dispatch depends on no crypto, HTTP/2, providers or HTTP")
    func domainWithoutTransports() throws {
        let dispatch = try #require(try Self.declaredDependencies()["DropTrackDispatch"])
        for forbidden in [
            "DropTrackCrypto", "DropTrackHTTP2", "DropTrackProviders", "DropTrackHTTP1", "DropTrackOutbound",
            "COpenSSL",
            "CNGHTTP2", "CCurl",
        ] {
            #expect(!dispatch.contains(forbidden), "DropTrackDispatch depends on \(forbidden)")
        }
    }

    @Test("droptrack, the production binary, links no emulator, simulated phone, demo or iOS client library")
    func productionWithoutTheTestRig() throws {
        let declared = try Self.declaredDependencies()
        // Everything droptrack's target reaches, through every target it depends on.
        var reached: Set<String> = []
        var frontier = ["droptrack"]
        while let target = frontier.popLast() {
            for dependency in declared[target] ?? [] where reached.insert(dependency).inserted {
                frontier.append(dependency)
            }
        }
        for forbidden in ["DropTrackEmulators", "DropTrackDemo", "DropTrackLive", "DropTrackWidgets"] {
            #expect(!reached.contains(forbidden), "droptrack reaches \(forbidden)")
        }
        #expect(reached.contains("DropTrackRuntime"), "the walk found droptrack's own layers: \(reached.sorted())")
        let development = try #require(declared["droptrack-dev"])
        #expect(development.contains("DropTrackEmulators") && development.contains("DropTrackDemo"))
    }

    @Test("nothing in the repository points outside it")
    func selfContained() throws {
        // Spelled in parts, so this file does not itself point outside the repository.
        let folder = "sha" + "red"
        let outside = ["../" + folder, folder + "/reference", folder + "/DESIGN"]
        var offenders: [String] = []
        for folder in ["Sources", "Tests", "docs", "checks", "scripts", "bench", "vectors"] {
            let files =
                FileManager.default.enumerator(atPath: repositoryRoot + "/" + folder)?.compactMap { $0 as? String }
                ?? []
            for file in files {
                guard let text = try? String(contentsOfFile: "\(repositoryRoot)/\(folder)/\(file)", encoding: .utf8)
                else { continue }
                if outside.contains(where: text.contains) { offenders.append("\(folder)/\(file)") }
            }
        }
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        if outside.contains(where: readme.contains) { offenders.append("README.md") }
        #expect(offenders.isEmpty, "these point outside the repository: \(offenders)")
    }
}
