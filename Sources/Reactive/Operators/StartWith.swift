extension ObservableType {
    /// Emits `elements`, in order, as soon as it is subscribed, then the elements and terminal
    /// event of the source.
    ///
    /// The prefix is delivered synchronously inside `subscribe`, before the source is subscribed.
    ///
    /// ```swift
    /// password.startWith("")   // "" at once, then every keystroke
    /// ```
    @inlinable
    public func startWith(_ elements: Element...) -> Observable<Element> {
        let source = asObservable()
        return Observable(unsafeSubscribe: { downstream in
            for element in elements { downstream.on(.next(element)) }
            return source.subscribe(downstream)
        })
    }
}
