import Foundation
import Hummingbird
import Testing
@testable import WorkbenchServe

/// What every request is checked against: the Host must be this server's own name with the
/// port it got, the token the one it printed. (The CLI's `Serve/` suites send such requests
/// over HTTP to a running `workbench serve`.)
@Suite struct AccessCheckTests {
    @Test func onlyThisServersNamesWithItsPortAreAllowed() {
        let hosts = HostNames(listeningOn: "127.0.0.1")
        #expect(!hosts.allows("127.0.0.1:8080"), "no port is known before the server listens")
        hosts.listening(on: 8080)
        for authority in ["127.0.0.1:8080", "localhost:8080", "[::1]:8080"] { #expect(hosts.allows(authority), "\(authority)") }
        // A name a web page rebound to 127.0.0.1, another port, no port, no Host at all.
        for authority in ["attacker.example:8080", "127.0.0.1:8081", "127.0.0.1", "localhost", "127.0.0.1:8080.attacker.example"] {
            #expect(!hosts.allows(authority), "\(authority)")
        }
        #expect(!hosts.allows(nil))
    }

    @Test func aServerOnAnotherAddressAnswersToItToo() {
        let named = HostNames(listeningOn: "192.168.1.7")
        named.listening(on: 9000)
        #expect(named.allows("192.168.1.7:9000") && named.allows("127.0.0.1:9000"))
        let v6 = HostNames(listeningOn: "fd00::7")
        v6.listening(on: 9000)
        #expect(v6.allows("[fd00::7]:9000") && !v6.allows("fd00::7:9000"))
        // Every address: the machine's own name as well.
        let everywhere = HostNames(listeningOn: "0.0.0.0")
        everywhere.listening(on: 9000)
        var buffer = [CChar](repeating: 0, count: 256)
        #expect(gethostname(&buffer, buffer.count) == 0)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #expect(!name.isEmpty && everywhere.allows("\(name):9000"), "\(name)")
        #expect(!everywhere.allows("0.0.0.0:9000"))
    }

    @Test func aNewTokenIsSixtyFourHexDigitsAndComparedWhole() {
        typealias Check = AccessCheck<BasicRequestContext>
        let tokens = (0..<4).map { _ in Check.newToken() }
        #expect(Set(tokens).count == 4)
        #expect(tokens.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
        #expect(Check.same(tokens[0], tokens[0]))
        var last = Array(tokens[0])
        last[63] = last[63] == "0" ? "1" : "0"
        #expect(!Check.same(tokens[0], String(last)) && !Check.same(tokens[0], tokens[0] + "0") && !Check.same(tokens[0], ""))
    }
}
