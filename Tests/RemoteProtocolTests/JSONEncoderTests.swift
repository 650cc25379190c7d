import Foundation
import Testing

@testable import RemoteProtocol

@Suite("JSON encoder: golden encodings", .timeLimit(.minutes(1)))
struct JSONEncoderTests {
    @Test func structsAreObjectsInEncodingOrder() throws {
        #expect(
            try OurJSON.text(LoginBody.sample)
                == #"{"username":"alice","password":"correct horse","phone":"+44 20 7946 0000","locale":"en_GB","client":"ios/2.3.1"}"#
        )
    }

    @Test func sortedKeysSortByUTF8Bytes() throws {
        let value = ["a10": 1, "a9": 2, "B": 3, "a": 4, "é": 5, "z": 6, "Z": 7, "aa": 8, "a_": 9, "A": 10]
        #expect(
            try OurJSON.text(value, sortedKeys: true)
                == #"{"A":10,"B":3,"Z":7,"a":4,"a10":1,"a9":2,"a_":9,"aa":8,"z":6,"é":5}"#)
        #expect(
            try OurJSON.text(LoginBody.sample, sortedKeys: true)
                == #"{"client":"ios/2.3.1","locale":"en_GB","password":"correct horse","phone":"+44 20 7946 0000","username":"alice"}"#
        )
    }

    @Test func nestedObjectsSortInsideOut() throws {
        let value = ["b": ["y": [3], "x": [4]], "a": ["d": [1, 2], "c": []]]
        #expect(
            try OurJSON.text(value, sortedKeys: true) == #"{"a":{"c":[],"d":[1,2]},"b":{"x":[4],"y":[3]}}"#)
    }

    @Test func optionalsAreSkippedOrNull() throws {
        struct Body: Codable {
            var present: Int?
            var absent: Int?
        }
        #expect(try OurJSON.text(Body(present: 1, absent: nil)) == #"{"present":1}"#)
        #expect(try OurJSON.text([1, nil, 3] as [Int?]) == "[1,null,3]")
        #expect(try OurJSON.text(Int?.none) == "null")
    }

    @Test func integersOfEveryWidthAreExact() throws {
        #expect(
            try OurJSON.text([Int64.min, Int64.max, 0, -1])
                == "[-9223372036854775808,9223372036854775807,0,-1]")
        #expect(try OurJSON.text([UInt64.max, 0]) == "[18446744073709551615,0]")
        #expect(try OurJSON.text([Int8.min, Int8.max]) == "[-128,127]")
        #expect(try OurJSON.text([UInt8.max]) == "[255]")
        #expect(try OurJSON.text([Int16.min, Int16.max]) == "[-32768,32767]")
        #expect(try OurJSON.text([UInt16.max]) == "[65535]")
        #expect(try OurJSON.text([Int32.min, Int32.max]) == "[-2147483648,2147483647]")
        #expect(try OurJSON.text([UInt32.max]) == "[4294967295]")
        #expect(try OurJSON.text([Int.min, Int.max]) == "[-9223372036854775808,9223372036854775807]")
        #expect(try OurJSON.text([UInt.max]) == "[18446744073709551615]")
    }

    @Test func floatingPointIsShortestRoundTripText() throws {
        let doubles = [
            1.0, 0.1, -0.0, 1e20, 1e21, 1e-7, .leastNonzeroMagnitude, 1.7976931348623157e308, 100, 1e16, 1e15,
            12.5,
            123456789012345680000.0,
        ]
        #expect(
            try OurJSON.text(doubles)
                == "[1,0.1,-0,1e+20,1e+21,1e-07,5e-324,1.7976931348623157e+308,100,1e+16,1000000000000000,12.5,1.2345678901234568e+20]"
        )
        #expect(
            try OurJSON.text([Float(0.1), 3.4028235e38, 16_777_216, -1.5])
                == "[0.1,3.4028235e+38,16777216,-1.5]")
    }

    @Test func nonFiniteNumbersAreEncodeErrors() {
        for value in [Double.nan, .infinity, -.infinity] {
            #expect(throws: EncodingError.self) { try OurJSON.encode(["x": value]) }
        }
        #expect(throws: EncodingError.self) { try OurJSON.encode([Float.nan]) }
        #expect(throws: EncodingError.self) { try OurJSON.encode(Decimal.nan) }
        do {
            _ = try JSONBodyCoder.shared.encode(["score": [1, Double.infinity]])
            Issue.record("infinity encoded")
        } catch {
            #expect(error.code == .internal)
            #expect(error.message.contains("score[1]"), "\(error.message)")
        }
    }

    @Test func stringsEscapeOnlyWhatJSONRequires() throws {
        let text = "a/\u{1}\u{7f}\u{8}\u{c}\t\r\n\u{1f}\u{2028}é\"\\😀\u{1b}"
        #expect(
            try OurJSON.text(text) == "\"a/\\u0001\u{7f}\\b\\f\\t\\r\\n\\u001f\u{2028}é\\\"\\\\😀\\u001b\"")
        #expect(try OurJSON.text("") == #""""#)
        #expect(try OurJSON.text(["k\"ey\n": 1]) == #"{"k\"ey\n":1}"#)
    }

    @Test func foundationTypesUseFoundationsDefaults() throws {
        #expect(try OurJSON.text([Data([1, 2, 3, 255])]) == #"["AQID/w=="]"#)
        #expect(try OurJSON.text([Data(), Data([0]), Data([0, 1])]) == #"["","AA==","AAE="]"#)
        #expect(try OurJSON.text([URL(string: "https://x.y/a?b=c")]) == #"["https://x.y/a?b=c"]"#)
        #expect(try OurJSON.text([Date(timeIntervalSinceReferenceDate: 1.5)]) == "[1.5]")
        let decimals = [Decimal(string: "3.14"), Decimal(string: "-12345678901234567890.5"), Decimal(0)]
        #expect(try OurJSON.text(decimals) == "[3.14,-12345678901234567890.5,0]")
    }

    @Test func dictionariesAreObjectsWithStringKeys() throws {
        #expect(try OurJSON.text([1: "a", 20: "b"], sortedKeys: true) == #"{"1":"a","20":"b"}"#)
        #expect(try OurJSON.text(["only": [true, false]]) == #"{"only":[true,false]}"#)
        #expect(try OurJSON.text([String: Int]()) == "{}")
        #expect(try OurJSON.text([Int]()) == "[]")
    }

    @Test func enumsWithRawValuesAreTheirRawValues() throws {
        #expect(try OurJSON.text([ProfileBody.Level.high]) == "[2]")
        #expect(try OurJSON.text(ProfileBody.Color.red) == #""red""#)
    }

    @Test func topLevelScalars() throws {
        #expect(try OurJSON.text(5) == "5")
        #expect(try OurJSON.text(true) == "true")
        #expect(try OurJSON.text("x") == #""x""#)
    }

    /// Encodes nothing: an empty object when nested, an error at the top level (as Foundation).
    struct Silent: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func valuesThatEncodeNothing() throws {
        #expect(try OurJSON.text(["a": Silent()]) == #"{"a":{}}"#)
        #expect(throws: EncodingError.self) { try OurJSON.encode(Silent()) }
    }

    /// Uses nested containers and `encodeNil` by hand.
    struct Handmade: Encodable {
        enum Keys: String, CodingKey { case name, inner, list, gone, after }
        enum InnerKeys: String, CodingKey { case x, y }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("h", forKey: .name)
            var inner = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
            try inner.encode(1, forKey: .x)
            try inner.encodeNil(forKey: .y)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode(1)
            var deeper = list.nestedUnkeyedContainer()
            try deeper.encode("d")
            var object = list.nestedContainer(keyedBy: InnerKeys.self)
            try object.encode(true, forKey: .x)
            try list.encodeNil()
            #expect(list.count == 4)
            try container.encodeNil(forKey: .gone)
            try container.encode(2.5, forKey: .after)
        }
    }

    @Test func nestedContainersAndNil() throws {
        #expect(
            try OurJSON.text(Handmade())
                == #"{"name":"h","inner":{"x":1,"y":null},"list":[1,["d"],{"x":true},null],"gone":null,"after":2.5}"#
        )
        #expect(
            try OurJSON.encode(Handmade(), sortedKeys: true)
                == FoundationJSON.encode(Handmade(), sortedKeys: true))
    }

    class Animal: Codable {
        var legs: Int
        init(legs: Int) { self.legs = legs }
    }

    final class Dog: Animal {
        var name: String
        init(name: String) {
            self.name = name
            super.init(legs: 4)
        }
        enum Keys: String, CodingKey { case name }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            name = try container.decode(String.self, forKey: .name)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(name, forKey: .name)
            try super.encode(to: container.superEncoder())
        }
    }

    /// Encodes through the same encoder twice, as a subclass without its own key space does.
    final class Cat: Animal {
        var lives = 9
        enum Keys: String, CodingKey { case lives }
        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(lives, forKey: .lives)
        }
    }

    @Test func superEncodersNestUnderSuper() throws {
        #expect(try OurJSON.text(Dog(name: "rex")) == #"{"name":"rex","super":{"legs":4}}"#)
        #expect(try OurJSON.text(Cat(legs: 4)) == #"{"legs":4,"lives":9}"#)
        let dogs = [Dog(name: "a")]
        #expect(try OurJSON.encode(dogs, sortedKeys: true) == FoundationJSON.encode(dogs, sortedKeys: true))
        let cats = [Cat(legs: 3)]
        #expect(try OurJSON.encode(cats, sortedKeys: true) == FoundationJSON.encode(cats, sortedKeys: true))
    }

    /// Leaves a super encoder unused: Foundation writes an empty object there.
    struct UnusedSuper: Encodable {
        enum Keys: String, CodingKey { case a }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            _ = container.superEncoder()
            try container.encode(1, forKey: .a)
            var list = container.nestedUnkeyedContainer(forKey: .a)
            _ = list.superEncoder()
        }
    }

    /// Writes to a parent, then to a nested container it had left: the fallback path.
    struct OutOfOrder: Encodable {
        enum Keys: String, CodingKey { case first, second }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var first = container.nestedUnkeyedContainer(forKey: .first)
            try container.encode(2, forKey: .second)
            try first.encode(1)
        }
    }

    @Test func unusualContainerUseMatchesFoundation() throws {
        #expect(try OurJSON.text(UnusedSuper()) == #"{"super":{},"a":1,"a":[{}]}"#)
        #expect(throws: JSONOutOfOrderEncoding.self) { try OurJSON.encode(OutOfOrder()) }
        #expect(
            try JSONBodyCoder(sortedKeys: true).encode(OutOfOrder())
                == FoundationJSON.encode(OutOfOrder(), sortedKeys: true))
    }

    /// Asks for a keyed and then an unkeyed container: Foundation traps, we report an error.
    struct TwoKinds: Encodable {
        enum Keys: String, CodingKey { case a }
        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: Keys.self)
            try keyed.encode(1, forKey: .a)
            var unkeyed = encoder.unkeyedContainer()
            try unkeyed.encode(2)
        }
    }

    /// Encodes a struct through a single value container, as wrappers do.
    struct Wrapper: Encodable {
        var inner = LoginBody.sample
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(inner)
        }
    }

    /// Encodes two values through one single value container.
    struct Twice: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(1)
            try container.encode(2)
        }
    }

    @Test func misusedEncodersAreErrorsNotGarbage() throws {
        #expect(throws: EncodingError.self) { try OurJSON.encode(["x": TwoKinds()]) }
        #expect(throws: EncodingError.self) { try OurJSON.encode([Twice()]) }
        do {
            _ = try JSONBodyCoder.shared.encode(TwoKinds())
            Issue.record("encoded")
        } catch {
            #expect(error.code == .internal)
        }
        #expect(
            try OurJSON.encode([Wrapper()], sortedKeys: true)
                == FoundationJSON.encode([Wrapper()], sortedKeys: true))
    }

    @Test func theNestedProfileMatchesFoundation() throws {
        #expect(
            try OurJSON.encode(ProfileBody.sample, sortedKeys: true)
                == FoundationJSON.encode(ProfileBody.sample, sortedKeys: true))
        // Unsorted, Foundation on Linux writes keys in hash order; we write them in encoding order.
        let unsorted = try OurJSON.encode(LoginBody.sample)
        #expect(try FoundationJSON.decode(LoginBody.self, from: unsorted) == LoginBody.sample)
    }
}
