public import RemoteProtocol

/// Every method the services answer, as descriptors (``RequestMethod``, ``StreamMethod``,
/// ``ChannelMethod``): the name on the wire, the interaction model and the body types, shared by the
/// servers that register them and the clients that call them (docs/transport/remote-streams.md,
/// "Method descriptors").
///
/// | namespace | served by | methods |
/// |---|---|---|
/// | ``Validation`` | validation-service | `validate.phone`, `validate.password`, `validate.username`, `validate.repeat`, `validate.fields` |
/// | ``Auth`` | auth-service | `auth.register`, `auth.login`, `auth.exists`, `auth.verify`, `auth.logout`, `auth.events` |
/// | ``Heroes`` | hero-catalog-service | `heroes.search`, `heroes.get`, `heroes.watch` |
/// | ``Flow`` | gateway | `flow.login`, `flow.register`, `flow.signin`, `flow.heroes`, `flow.numbers` |
/// | ``Command`` | gateway | `login`, `register`, `signin`, `heroes.search` |
/// | ``System`` | every service | `sys.health`, `sys.stats`, `sys.endpoints` |
///
/// The gateway's `heroes.search` command and the catalog's `heroes.search` share a name on
/// different servers; their descriptors (``Command/heroesSearch``, ``Heroes/search``) keep their
/// bodies apart.
public enum Methods {}

/// The descriptor of every `flow.*` channel: ``FlowParameters`` to open it, ``FlowInput``s in,
/// ``FlowOutput``s out.
public typealias FlowMethod = ChannelMethod<FlowParameters, FlowInput, FlowOutput>
