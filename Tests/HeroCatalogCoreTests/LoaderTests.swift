import Contracts
import Foundation
import Testing

@testable import HeroCatalogCore

@Suite("CatalogLoader: JSON, XML and binary property lists, malformed files", .timeLimit(.minutes(1)))
struct LoaderTests {
    @Test("the built-in catalog loads")
    func builtIn() throws {
        let catalog = try HeroCatalog(heroes: CatalogLoader.decode(Data(BuiltInCatalog.json.utf8), as: .json))
        #expect(!catalog.heroes.isEmpty)
        #expect(catalog.heroes.allSatisfy { !$0.icon.isEmpty && $0.name["en"] != nil })
    }

    @Test("a JSON catalog: ids, locales (zh-Hant optional), icon")
    func json() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            "c.json",
            """
            [{"id": 7, "name": {"zh-Hans": "夸父", "en": "Kuafu"}, "intro": {"en": "Ran after the sun."},
              "icon": "kuafu.png"},
             {"id": 9, "name": {"zh-Hans": "精卫", "zh-Hant": "精衛", "en": "Jingwei"}, "intro": {},
              "icon": "jingwei.png"}]
            """)
        let catalog = try CatalogLoader.load(path: path)
        #expect(catalog.heroes.map(\.id) == [7, 9])
        #expect(catalog.hero(id: 9)?.name["zh-Hant"] == "精衛")
        #expect(catalog.search("精衛", offset: 0, limit: 5).total == 1)
    }

    @Test("an XML property list like the demo's heros.plist: ids from 1, text under zh-Hans")
    func xmlPropertyList() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalog = try CatalogLoader.load(path: try directory.write("heros.plist", fixturePropertyList))
        #expect(catalog.heroes.map(\.id) == [1, 2, 3])
        #expect(catalog.heroes[1].name == ["zh-Hans": "精卫"])
        #expect(catalog.heroes[1].icon == "jingwei.png")
        #expect(catalog.heroes[2].intro["zh-Hans"]?.hasPrefix("带着子孙") == true)
        #expect(catalog.search("公", offset: 0, limit: 5).items.map(\.id) == [3])
    }

    @Test("a binary property list")
    func binaryPropertyList() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let items: [[String: String]] = [
            ["name": "后土", "intro": "掌管大地。", "icon": "houtu.png"],
            ["name": "句芒", "intro": "掌管春天。", "icon": "goumang.png"],
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: items, format: .binary, options: 0)
        #expect(data.starts(with: Array("bplist".utf8)))
        let catalog = try CatalogLoader.load(path: try directory.write("b.plist", data))
        #expect(catalog.heroes.map(\.name) == [["zh-Hans": "后土"], ["zh-Hans": "句芒"]])
        // Without an extension the contents decide.
        #expect(try CatalogLoader.load(path: try directory.write("noext", data)).heroes.count == 2)
    }

    @Test(
        "malformed files: the error names the file and the problem",
        arguments: [
            ("bad.json", "[{\"id\": 1, \"name\": {\"en\": \"A\"}", "not a JSON catalog"),
            ("missing.json", "[{\"id\": 1, \"name\": {\"en\": \"A\"}, \"intro\": {}}]", "icon"),
            (
                "dup.json",
                "[{\"id\": 1, \"name\": {\"en\": \"A\"}, \"intro\": {}, \"icon\": \"a\"},"
                    + "{\"id\": 1, \"name\": {\"en\": \"B\"}, \"intro\": {}, \"icon\": \"b\"}]", "same id 1"
            ),
            ("empty.json", "[]", "no heroes"),
            ("bad.plist", "<?xml version=\"1.0\"?><plist><array><dict>", "not a property list"),
            (
                "dict.plist", "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict/></plist>",
                "array of dictionaries"
            ),
            (
                "noicon.plist",
                "<?xml version=\"1.0\"?><plist version=\"1.0\"><array><dict><key>name</key><string>A</string>"
                    + "<key>intro</key><string>B</string></dict></array></plist>", "item 1: `icon`"
            ),
            ("catalog.txt", "hello", "unknown format"),
        ])
    func malformed(name: String, contents: String, problem: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(name, contents)
        do {
            _ = try CatalogLoader.load(path: path)
            Issue.record("\(name) loaded")
        } catch {
            #expect(error.file == path)
            #expect(error.description.hasPrefix(path + ": "))
            #expect(error.problem.contains(problem), "\(error)")
        }
    }

    @Test("a missing file is named")
    func missing() {
        #expect(throws: CatalogError.self) { try CatalogLoader.load(path: "/nonexistent/catalog.json") }
    }
}
