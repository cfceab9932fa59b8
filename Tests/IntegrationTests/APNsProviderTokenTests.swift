import DropTrackCore
import DropTrackEmulators
import DropTrackModel
import DropTrackProviders
import DropTrackTesting
import DropTrackWire
import Foundation
import Testing

/// The provider token against the emulator's rules (one token change per connection per 20 minutes,
/// an `iat` at most an hour old by the emulator's clock), with the client's wall clock, its monotonic
/// clock and the emulator's clock moved apart by hand.
@Suite("APNs provider tokens across clock jumps and token refusals")
struct APNsProviderTokenTests {
    let state = ["n": 1]

    @Test("the client's wall clock jumping an hour forward, then back, changes no token: every send is accepted")
    func wallClockJumps() async throws {
        let start = Date()
        let wall = ManualWallClock(start)
        let harness = try APNsHarness(clock: ManualWallClock(start))
        defer { harness.stop() }
        let logs = InMemoryLogHandler()
        let client = try harness.client(
            clock: wall, monotonic: ManualMonotonicClock().now, logger: Logger(handler: logs, minimumLevel: .info))
        defer { client.shutdown() }
        let token = DeviceToken(APNsHarness.randomToken())
        var outcomes: [String] = []
        for jump in [0.0, 3600, -3600, -3600, 3600] {
            wall.advance(by: jump)
            let sent = try await client.sendLiveActivity(to: token, event: .update, contentState: state)
            outcomes.append("\(sent.status) \(sent.reasonName) \(sent.attempts)")
        }
        #expect(outcomes == Array(repeating: "200 ok 1", count: 5))
        #expect(client.configuration.providerToken.tokensMinted == 1)
        #expect(client.connectionsOpened == 1)
        #expect(logs.entries.filter { $0.message == "apns.clock_jump" }.count == 4)
    }

    @Test("ExpiredProviderToken: a new token on a new connection, and the push arrives")
    func expiredGetsNewConnection() async throws {
        let start = Date()
        let emulatorClock = ManualWallClock(start)
        // The server's clock runs 50 minutes slow, so its token's iat is 50 minutes old from the start.
        let wall = ManualWallClock(start.addingTimeInterval(-3000))
        let monotonic = ManualMonotonicClock()
        let harness = try APNsHarness(clock: emulatorClock)
        defer { harness.stop() }
        let client = try harness.client(clock: wall, monotonic: monotonic.now)
        defer { client.shutdown() }
        let token = DeviceToken(APNsHarness.randomToken())
        #expect(try await client.sendLiveActivity(to: token, event: .update, contentState: state).status == 200)

        // 15 minutes on, APNs finds that token over an hour old; NTP has set the server's clock right meanwhile.
        monotonic.advance(by: .seconds(900))
        emulatorClock.advance(by: 900)
        wall.set(start.addingTimeInterval(900))
        let sent = try await client.sendLiveActivity(to: token, event: .update, contentState: state)
        #expect(sent.status == 200)
        #expect(sent.attempts == 2)
        #expect(client.configuration.providerToken.tokensMinted == 2)
        #expect(client.connectionsOpened == 2, "the refused connection is retired: \(client.connectionEndReasons)")
        let answers = harness.emulator.records(forToken: token).map(\.reason)
        #expect(answers == [nil, "ExpiredProviderToken", nil])
    }

    @Test("TooManyProviderTokenUpdates: the push goes again on a new connection instead of being retried on the same")
    func tooManyGetsNewConnection() async throws {
        let monotonic = ManualMonotonicClock()
        let harness = try APNsHarness()
        defer { harness.stop() }
        let client = try harness.client(maxConnections: 1, monotonic: monotonic.now)
        defer { client.shutdown() }
        let token = DeviceToken(APNsHarness.randomToken())
        let tokens = client.configuration.providerToken
        let first = try tokens.current()
        #expect(try await client.sendLiveActivity(to: token, event: .update, contentState: state).status == 200)
        // Another app's send was refused as expired and renewed the token 30 s later: the connection had
        // its first token 30 s ago, so APNs refuses the second.
        monotonic.advance(by: .seconds(30))
        #expect(tokens.renew(rejected: first))
        let sent = try await client.sendLiveActivity(to: token, event: .update, contentState: state)
        #expect(sent.status == 200)
        #expect(sent.attempts == 2)
        #expect(client.connectionsOpened == 2)
        let answers = harness.emulator.records(forToken: token).map(\.reason)
        #expect(answers == [nil, "TooManyProviderTokenUpdates", nil])
    }

    @Test("a token every connection refuses ends after one attempt per connection, with the remedy")
    func refusalsAreBounded() async throws {
        let start = Date()
        let emulatorClock = ManualWallClock(start)
        let harness = try APNsHarness(clock: emulatorClock)
        defer { harness.stop() }
        let client = try harness.client(maxConnections: 2)
        defer { client.shutdown() }
        let token = DeviceToken(APNsHarness.randomToken())
        emulatorClock.advance(by: 2 * 3600)
        let sent = try await client.sendLiveActivity(to: token, event: .update, contentState: state)
        #expect(sent.result?.reason == .expiredProviderToken)
        #expect(sent.attempts == 3)
        #expect(sent.remedy == .refreshProviderToken)
    }
}
