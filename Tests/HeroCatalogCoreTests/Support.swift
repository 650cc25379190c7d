import Contracts
import Foundation
import Reactive
import RemoteProtocol
import Synchronization

@testable import HeroCatalogCore

/// A monotonic clock the test moves by hand.
final class ManualClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    func advance(_ duration: Duration) { instant.withLock { $0 += duration } }

    var now: @Sendable () -> ContinuousClock.Instant { { self.instant.withLock { $0 } } }
}

/// A temp directory removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "heroes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ contents: String) throws -> String {
        try write(name, Data(contents.utf8))
    }

    func write(_ name: String, _ contents: Data) throws -> String {
        let file = path + "/" + name
        try contents.write(to: URL(fileURLWithPath: file))
        return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A hero with one name per given locale.
func hero(_ id: Int, _ names: [String: String]) -> Hero {
    Hero(id: id, name: names, intro: ["en": "intro \(id)"], icon: "hero-\(id).png")
}

/// The catalog of the search edge cases.
func edgeCaseCatalog() throws -> HeroCatalog {
    try HeroCatalog(heroes: [
        hero(1, ["en": "D'Artagnan", "zh-Hans": "达达尼昂"]),
        hero(2, ["en": "Jean·Valjean", "zh-Hans": "冉·阿让"]),
        hero(3, ["en": "Straße Runner"]),
        hero(4, ["en": "ÉLODIE"]),
        hero(5, ["en": "ＦＵＬＬ Width"]),
        hero(6, ["en": "Odysseus", "zh-Hant": "奧德修斯"]),
        hero(7, ["en": "ΟΔΥΣΣΕΥΣ"]),
    ])
}

/// An XML property list in the shape of the original demo's heros.plist, with names of our own.
let fixturePropertyList = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <array>
        <dict>
            <key>name</key><string>夸父</string>
            <key>intro</key><string>追着太阳一直跑到天边的巨人。</string>
            <key>icon</key><string>kuafu.png</string>
        </dict>
        <dict>
            <key>name</key><string>精卫</string>
            <key>intro</key><string>衔着小石子要填平大海的鸟。</string>
            <key>icon</key><string>jingwei.png</string>
        </dict>
        <dict>
            <key>name</key><string>愚公</string>
            <key>intro</key><string>带着子孙一筐一筐搬走大山的老人。</string>
            <key>icon</key><string>yugong.png</string>
        </dict>
    </array>
    </plist>
    """
