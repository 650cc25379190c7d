import Sodium
import Testing

/// Lowercase hex of `bytes`.
private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        .joined()
}

@Suite("Sodium primitives", .timeLimit(.minutes(1)))
struct PrimitivesTests {
    @Test("SHA-256 FIPS 180-2 vectors")
    func sha256() {
        #expect(
            hex(SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("HMAC-SHA-256 RFC 4231 vectors, including a key longer than the block")
    func hmacSHA256() {
        #expect(
            hex(HMACSHA256.code(Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            hex(HMACSHA256.code(Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            hex(
                HMACSHA256.code(
                    Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                    key: [UInt8](repeating: 0xaa, count: 131)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(HMACSHA256.codeCount == 32)
    }

    @Test(
        "base64url: RFC 4648 §10 vectors without padding, and the URL alphabet",
        arguments: [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
        ])
    func base64URLVectors(_ plain: String, _ encoded: String) throws {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test("base64url uses - and _ where standard Base64 uses + and /")
    func urlAlphabet() throws {
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.encode([0xfb, 0xef, 0xbe]) == "----")
        #expect(Base64URL.encode([0xff, 0xff, 0xff]) == "____")
        #expect(try Base64URL.decode("-_8") == [0xfb, 0xff])
        let all = (0...255).map(UInt8.init)
        #expect(try Base64URL.decode(Base64URL.encode(all)) == all)
    }

    @Test(
        "base64url refuses padding, the standard alphabet, whitespace, bad lengths and stray bits",
        arguments: ["Zg==", "Zg=", "+/8", "Zm 9v", "Zm9v\n", "Z", "Zm9vY", "Zh", "Zm9=", "é", "Zm\u{0}9"])
    func base64URLBadInput(_ text: String) {
        #expect {
            try Base64URL.decode(text)
        } throws: { error in
            (error as? SodiumError)?.code == .invalidBase64
        }
    }

    @Test("random bytes have the asked length and do not repeat")
    func randomBytes() {
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(1).count == 1)
        #expect(SecureRandom.bytes(100).count == 100)
        let draws = Set((0..<64).map { _ in SecureRandom.bytes(16) })
        #expect(draws.count == 64)
    }

    @Test("constant-time comparison: equal, different and shorter inputs")
    func constantTime() {
        #expect(constantTimeEquals([], []))
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
    }

    /// What an attacker times: a comparison that stops at the first difference answers a secret that
    /// differs in its first byte sooner than one that differs in its last. The same measurement on
    /// `==` (which does stop) shows that it can see the difference.
    @Test("constant-time comparison takes as long whichever byte differs; == does not")
    func constantTimeTakesTheSameTime() {
        let size = 1 << 16
        let secret = [UInt8](repeating: 0x5A, count: size)
        var first = secret
        first[0] ^= 1
        var last = secret
        last[size - 1] ^= 1
        /// The median time of `calls` comparisons of `secret` with each guess, sampled in turn.
        func medians(_ compare: ([UInt8], [UInt8]) -> Bool, calls: Int) -> (first: Duration, last: Duration) {
            var times: ([Duration], [Duration]) = ([], [])
            var equal = 0
            for _ in 0..<31 {
                let clock = ContinuousClock()
                times.0.append(
                    clock.measure { for _ in 0..<calls where compare(secret, first) { equal += 1 } })
                times.1.append(
                    clock.measure { for _ in 0..<calls where compare(secret, last) { equal += 1 } })
            }
            #expect(equal == 0)
            return (times.0.sorted()[15], times.1.sorted()[15])
        }
        let constant = medians(constantTimeEquals, calls: 20)
        let ratio = constant.last / constant.first
        #expect(ratio > 0.5 && ratio < 2, "\(constant)")
        let early = medians(==, calls: 20)
        #expect(early.last / early.first > 4, "\(early)")
    }

    @Test("a token is 43 base64url characters of 32 bytes; only its SHA-256 is kept")
    func token() throws {
        let token = Token.generate()
        #expect(token.text.count == 43)
        let raw = try Base64URL.decode(token.text)
        #expect(raw.count == 32)
        #expect(token.digest == SHA256.hash(raw))
        #expect(try Token.digest(of: token.text) == token.digest)
        #expect(Token.generate().text != token.text)
    }

    @Test("a presented token that is not base64url of 32 bytes is refused")
    func badToken() {
        for text in ["", "abc", String(repeating: "A", count: 42), String(repeating: "A", count: 44), "!!!"] {
            #expect {
                try Token.digest(of: text)
            } throws: { error in
                (error as? SodiumError)?.code == .invalidBase64
            }
        }
    }
}
