import DropTrackCore
import DropTrackDispatch
import DropTrackRuntime
import DropTrackTesting
import Foundation
import Testing

@Suite("Webhook configuration: refused with the field named")
struct WebhookConfigurationTests {
    func configuration(_ webhooks: [AppConfiguration.Webhook], loopback: Bool = false) -> ServerConfiguration {
        ServerConfiguration(
            store: "memory", apps: [AppConfiguration(id: "app1", webhooks: webhooks)], allowLoopbackWebhooks: loopback)
    }

    func refusal(_ configuration: ServerConfiguration) -> ConfigurationError? {
        do {
            try configuration.validate()
            return nil
        } catch {
            return error
        }
    }

    @Test("https only; loopback http only when allowed; known events; each id once")
    func validation() {
        let ok = AppConfiguration.Webhook(id: "ops", url: "https://hooks.example.com/in", secretFile: "/s")
        #expect(refusal(configuration([ok])) == nil)
        var plain = ok
        plain.url = "http://hooks.example.com/in"
        #expect(refusal(configuration([plain]))?.key == "apps[0].webhooks[0].url")
        var loopback = ok
        loopback.url = "http://127.0.0.1:9000/in"
        let refused = refusal(configuration([loopback]))
        #expect(refused?.key == "apps[0].webhooks[0].url")
        #expect(refused?.message.contains("allowLoopbackWebhooks") == true)
        #expect(refusal(configuration([loopback], loopback: true)) == nil)
        var events = ok
        events.events = ["dead_letter", "sent"]
        #expect(refusal(configuration([events]))?.key == "apps[0].webhooks[0].events")
        #expect(refusal(configuration([ok, ok]))?.key == "apps[0].webhooks[1].id")
        var noSecret = ok
        noSecret.secretFile = ""
        #expect(refusal(configuration([noSecret]))?.key == "apps[0].webhooks[0].secretFile")
    }

    @Test("a URL at a literal address that is not public is refused, unless loopback or its network is allowed")
    func literalAddresses() {
        func refusal(_ url: String, loopback: Bool = false, networks: [String] = []) -> ConfigurationError? {
            var configuration = configuration([.init(id: "ops", url: url, secretFile: "/s")], loopback: loopback)
            configuration.webhookAllowedNetworks = networks
            return self.refusal(configuration)
        }
        let privateURL = refusal("https://10.1.2.3/in")
        #expect(privateURL?.key == "apps[0].webhooks[0].url")
        #expect(privateURL?.message.contains("a private address (RFC 1918)") == true)
        #expect(privateURL?.message.contains("webhookAllowedNetworks") == true)
        #expect(refusal("https://10.1.2.3/in", networks: ["10.1.0.0/16"]) == nil)
        #expect(refusal("https://169.254.169.254/latest/meta-data")?.message.contains("link-local") == true)
        #expect(refusal("https://[::ffff:127.0.0.1]:8443/in")?.message.contains("allowLoopbackWebhooks") == true)
        #expect(refusal("https://[::1]:8443/in", loopback: true) == nil)
        #expect(refusal("https://hooks.example.com/in") == nil)
    }

    @Test("webhookAllowedNetworks takes CIDR networks only; the timeout and attempts must be positive")
    func limits() {
        var configuration = configuration([])
        configuration.webhookAllowedNetworks = ["10.0.0.0/8", "10.0.0.1/8"]
        let hostBits = refusal(configuration)
        #expect(hostBits?.key == "webhookAllowedNetworks[1]")
        #expect(hostBits?.message.contains("like 10.20.0.0/16") == true)
        configuration.webhookAllowedNetworks = ["hooks.internal"]
        #expect(refusal(configuration)?.key == "webhookAllowedNetworks[0]")
        configuration.webhookAllowedNetworks = []
        configuration.webhookTimeoutSeconds = 0
        #expect(refusal(configuration)?.key == "webhookTimeoutSeconds")
        configuration.webhookTimeoutSeconds = 10
        configuration.webhookMaxAttempts = 0
        #expect(refusal(configuration)?.key == "webhookMaxAttempts")
    }

    @Test("DROPTRACK_WEBHOOK_ALLOWED_NETWORKS is a comma-separated list")
    func allowedNetworksVariable() throws {
        let loaded = try ServerConfiguration.load(
            file: nil, environment: ["DROPTRACK_WEBHOOK_ALLOWED_NETWORKS": "10.20.0.0/16, fd00:1::/64"])
        #expect(loaded.webhookAllowedNetworks == ["10.20.0.0/16", "fd00:1::/64"])
        #expect(throws: ConfigurationError.self) {
            _ = try ServerConfiguration.load(
                file: nil, environment: ["DROPTRACK_WEBHOOK_ALLOWED_NETWORKS": "10.0.0.1/8"])
        }
    }

    @Test("a secret file others may read stops the server from starting, naming the field")
    func secretFileMode() throws {
        let file = makeTemporaryDirectory("webhook-mode") + "/hooks.secret"
        try "whsec_x\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        let hook = AppConfiguration.Webhook(id: "ops", url: "https://hooks.example.com/in", secretFile: file)
        #expect {
            _ = try DropTrackServer(configuration: configuration([hook]), logger: Logger(handler: InMemoryLogHandler()))
        } throws: { error in
            (error as? ConfigurationError)?.key == "apps[0].webhooks[0].secretFile"
                && "\(error)".contains("chmod 600")
        }
    }

    @Test("a relative secretFile is taken from the configuration file's directory")
    func relativeSecret() throws {
        let directory = makeTemporaryDirectory("webhook-config")
        let file = directory + "/droptrack.json"
        try
            #"{"store":"memory","apps":[{"id":"app1","apiKeyHashes":[],"webhooks":[{"id":"ops","url":"https://h.example/in","secretFile":"ops.secret"}]}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let loaded = try ServerConfiguration.load(file: file, environment: [:])
        #expect(loaded.apps[0].webhooks?.first?.secretFile == directory + "/ops.secret")
    }
}
