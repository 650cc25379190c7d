/// A small stand-in for the built-in catalog while it is written elsewhere: the lead deletes this
/// file when `BuiltInCatalog.swift` (the 100+ heroes) is merged.
public enum BuiltInCatalog {
    /// The catalog as a JSON array in the format of docs/services/hero-catalog.md.
    public static let json: String = #"""
        [
          {"id": 1, "name": {"zh-Hans": "补天者女娲", "en": "Nüwa the Sky-Mender"},
           "intro": {"zh-Hans": "她用五色石修好了破裂的天空。", "en": "She patched a broken sky with stones of five colours."},
           "icon": "hero-001.png"},
          {"id": 2, "name": {"zh-Hans": "治水者大禹", "en": "Yu the Flood-Tamer"},
           "intro": {"zh-Hans": "他疏导洪水，而不是筑堤堵截。", "en": "He led the floods away instead of walling them in."},
           "icon": "hero-002.png"},
          {"id": 3, "name": {"zh-Hans": "达达尼昂", "en": "D'Artagnan of Gascony"},
           "intro": {"zh-Hans": "一位带着一匹黄马来到巴黎的年轻剑手。", "en": "A young swordsman who rode into Paris on a yellow horse."},
           "icon": "hero-003.png"},
          {"id": 4, "name": {"zh-Hans": "冉·阿让", "en": "Jean·Valjean"},
           "intro": {"zh-Hans": "一个因一块面包而改变一生的人。", "en": "A man whose life turned on a loaf of bread."},
           "icon": "hero-004.png"},
          {"id": 5, "name": {"zh-Hans": "花木兰", "en": "Hua Mulan"},
           "intro": {"zh-Hans": "她替父从军十二年。", "en": "She served twelve years in her father's place."},
           "icon": "hero-005.png"}
        ]
        """#
}
