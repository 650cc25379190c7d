public import Contracts
public import GatewayMessages

/// Turns view-model values into ``FlowOutput`` events rendered in one locale (the table in
/// ``FlowOutput``'s documentation and docs/gateway/protocol.md).
public struct FlowRenderer: Sendable {
    /// The catalogue the texts come from.
    public let catalogue: MessageCatalogue
    /// The channel's locale.
    public let locale: MessageLocale

    /// A renderer of `catalogue`'s texts in `locale`.
    public init(catalogue: MessageCatalogue = .standard, locale: MessageLocale) {
        self.catalogue = catalogue
        self.locale = locale
    }

    /// `message` rendered.
    public func text(_ message: ScreenMessage) -> String {
        catalogue.render(message, in: locale)
    }

    /// A field's result: `state`, `code` and `message` (`""` when there is no code).
    public func field(_ output: FlowOutput.Name, _ result: ValidationResult) -> FlowOutput {
        FlowOutput(
            output, state: result.state, code: result.code,
            message: result.code.map { text(ScreenMessage($0, result.params)) } ?? "")
    }

    /// A flag: `value`.
    public func flag(_ output: FlowOutput.Name, _ value: Bool) -> FlowOutput {
        FlowOutput(output, value: value)
    }

    /// Login's tip line: the joined texts, and the code of the first message (the login result's
    /// while one shows, else the first failing field's); no code when the line is empty. While the
    /// first message is `login.ok`, `name`, `token` and `device_token` carry its values, so a
    /// client need not read them out of the rendered text.
    public func tip(_ messages: [ScreenMessage]) -> FlowOutput {
        let success = messages.first.flatMap { $0.code == .loginOK ? $0 : nil }
        return FlowOutput(
            .tip, code: messages.first?.code,
            message: ScreenMessage.joined(messages, rendering: text),
            name: success?.params["name"], token: success?.params["token"],
            deviceToken: success?.params["device_token"])
    }

    /// A one-shot alert: `kind`, `code`, `message`.
    public func alert(_ alert: ScreenAlert) -> FlowOutput {
        FlowOutput(.alert, code: alert.code, message: text(alert.message), kind: alert.kind)
    }

    /// A session: `name`, `token` (and `device_token` when the login gave one).
    public func session(name: String, token: String, deviceToken: String? = nil) -> FlowOutput {
        FlowOutput(.session, name: name, token: token, deviceToken: deviceToken)
    }

    /// A search's answer: its heroes (names and introductions in the locale) with the `query`,
    /// `page`, `total` and `page_size` it answers; `heroes` `[]` alone before the first search.
    public func heroes(_ page: HeroesPage?) -> FlowOutput {
        guard let page else { return FlowOutput(.heroes, heroes: []) }
        return FlowOutput(
            .heroes, heroes: page.heroes.map(hero), query: page.query, page: page.page, total: page.total,
            pageSize: page.pageSize)
    }

    /// One hero in the locale.
    public func hero(_ hero: Hero) -> FlowHero {
        FlowHero(id: hero.id, name: localized(hero.name), intro: localized(hero.intro))
    }

    /// A count: `number`.
    public func count(_ output: FlowOutput.Name, _ number: Int) -> FlowOutput {
        FlowOutput(output, number: number)
    }

    /// The heroes' error line: `code` and `message`, or `message` `""` after a good search.
    public func error(_ code: MessageCode?) -> FlowOutput {
        FlowOutput(.error, code: code, message: code.map { text(ScreenMessage($0)) } ?? "")
    }

    /// The sum: `number`, or `code` and `message` (`numbers.overflow`).
    public func sum(_ sum: NumbersSum) -> FlowOutput {
        switch sum {
        case .value(let number): FlowOutput(.sum, number: number)
        case .overflow:
            FlowOutput(
                .sum, code: NumbersSum.overflowCode, message: text(ScreenMessage(NumbersSum.overflowCode)))
        }
    }

    /// The text for the locale: the locale's, else `zh-Hans`'s, else the first by locale name.
    public func localized(_ texts: [String: String]) -> String {
        if let text = texts[locale.rawValue] { return text }
        if let text = texts[MessageLocale.zhHans.rawValue] { return text }
        return texts.keys.sorted().first.flatMap { texts[$0] } ?? ""
    }
}
