public import Contracts
public import Foundation
import RemoteProtocol

/// A catalog file that cannot be used: which file, and what is wrong with it.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's path (empty for a catalog that did not come from a file).
    public var file: String
    /// What is wrong, for a person.
    public var problem: String

    /// An error about `file`.
    public init(file: String, problem: String) {
        self.file = file
        self.problem = problem
    }

    public var description: String { file.isEmpty ? problem : "\(file): \(problem)" }
}

/// Reads catalogs: the JSON format of docs/services/hero-catalog.md, and the original demo's property
/// lists (an array of dictionaries with `name`, `intro` and `icon` strings, in Chinese).
public enum CatalogLoader {
    /// The locale a property list's text is filed under.
    public static let propertyListLocale = "zh-Hans"

    /// The formats a catalog file may have.
    public enum Format: String, Sendable, CaseIterable {
        /// An array of `{id, name: {locale: text}, intro: {locale: text}, icon}`.
        case json
        /// An XML or binary property list: an array of `{name, intro, icon}` dictionaries.
        case propertyList = "plist"
    }

    /// Reads the catalog in the file at `path`, whose format is chosen by its extension (`.json`,
    /// `.plist`), or by its first bytes when it has neither.
    public static func load(path: String) throws(CatalogError) -> HeroCatalog {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CatalogError(file: path, problem: "cannot read the file: \(error.localizedDescription)")
        }
        let format: Format
        switch (path as NSString).pathExtension.lowercased() {
        case "json": format = .json
        case "plist": format = .propertyList
        default:
            guard let sniffed = sniff(data) else {
                throw CatalogError(
                    file: path,
                    problem:
                        "unknown format: expected a .json or .plist file (a JSON array or a property list)")
            }
            format = sniffed
        }
        do throws(CatalogError) {
            // A JSON catalog in its plain shape is read straight into the catalog's storage; any
            // other file goes through `Hero`s (and the JSON coder decides and words every error).
            let read = format == .json ? data.withUnsafeBytes { CatalogJSONReader.read($0) } : nil
            let builder: HeroStore.Builder
            if let read { builder = read } else { builder = HeroStore.Builder(try decode(data, as: format)) }
            let store = try builder.finish()
            guard store.count > 0 else { throw CatalogError(file: "", problem: "the catalog has no heroes") }
            return try HeroCatalog(store: store)
        } catch {
            throw CatalogError(file: path, problem: error.problem)
        }
    }

    /// Decodes the heroes of a catalog file's contents.
    public static func decode(_ data: Data, as format: Format) throws(CatalogError) -> [Hero] {
        switch format {
        case .json: try decodeJSON(data)
        case .propertyList: try decodePropertyList(data)
        }
    }

    private static func sniff(_ data: Data) -> Format? {
        let head = data.prefix(64)
        if head.starts(with: Array("bplist".utf8)) || head.starts(with: Array("<?xml".utf8))
            || head.starts(with: Array("<plist".utf8))
        {
            return .propertyList
        }
        let first = head.first { byte in ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains(byte) }
        return first == UInt8(ascii: "[") ? .json : nil
    }

    private static func decodeJSON(_ data: Data) throws(CatalogError) -> [Hero] {
        do {
            return try JSONBodyCoder.shared.decode([Hero].self, from: Array(data))
        } catch {
            // The coder says "body is not JSON for <type>: <what and where>"; keep what and where.
            let message = error.message
            let detail = message.range(of: ": ").map { String(message[$0.upperBound...]) } ?? message
            throw CatalogError(file: "", problem: "not a JSON catalog: \(detail)")
        }
    }

    private static func decodePropertyList(_ data: Data) throws(CatalogError) -> [Hero] {
        let root: Any
        do {
            root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw CatalogError(file: "", problem: "not a property list (\(error.localizedDescription))")
        }
        guard let items = root as? [Any] else {
            throw CatalogError(file: "", problem: "a property list catalog is an array of dictionaries")
        }
        var heroes: [Hero] = []
        heroes.reserveCapacity(items.count)
        for (offset, item) in items.enumerated() {
            guard let dictionary = item as? [String: Any] else {
                throw CatalogError(file: "", problem: "item \(offset + 1) is not a dictionary")
            }
            func text(_ key: String) throws(CatalogError) -> String {
                guard let value = dictionary[key] as? String else {
                    throw CatalogError(
                        file: "", problem: "item \(offset + 1): `\(key)` is missing or not a string")
                }
                return value
            }
            let locale = propertyListLocale
            heroes.append(
                Hero(
                    id: offset + 1, name: [locale: try text("name")], intro: [locale: try text("intro")],
                    icon: try text("icon")))
        }
        return heroes
    }
}
