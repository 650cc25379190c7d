import Contracts
import Reactive

/// A `validate.fields` channel that heals itself: when it breaks, the view model's fields show
/// `network.error` and the channel is opened again after a delay (the latest texts are sent again,
/// so the fields recover by themselves when the service returns).
enum FieldChannel {
    /// One change to a screen's fields.
    enum Update: Sendable {
        /// A field's new verdict.
        case result(FieldResult)
        /// The channel broke; it is opened again `reopenAfter` later.
        case unreachable
    }

    /// The channel's results over `edits` (which must replay each field's latest text to a new
    /// subscriber), reopened `reopenAfter` after each break.
    static func updates(
        validation: any ValidationServiceClient, parameters: FieldsParameters, edits: Observable<FieldEdit>,
        reopenAfter: RxTimeInterval, scheduler: any SchedulerType
    ) -> Observable<Update> {
        validation.fields(parameters, edits: edits)
            .map(Update.result)
            .catch { _ in
                Observable.concat(
                    .just(.unreachable),
                    Observable<Int>.timer(reopenAfter, scheduler: scheduler).flatMapLatest { _ in
                        updates(
                            validation: validation, parameters: parameters, edits: edits,
                            reopenAfter: reopenAfter, scheduler: scheduler)
                    })
            }
    }

    /// The latest verdict of each of `fields` (a field nobody typed in is `empty`). While the channel
    /// is broken every field that was typed in is `failed` with `network.error`.
    static func verdicts(_ updates: Observable<Update>, fields: [Field]) -> Observable<[Field: ValidationResult]> {
        let initial = Dictionary(uniqueKeysWithValues: fields.map { ($0, ValidationResult.empty) })
        return updates.scan(initial) { verdicts, update in
            var next = verdicts
            switch update {
            case .result(let answer) where next[answer.field] != nil:
                next[answer.field] = answer.result
            case .result:
                break
            case .unreachable:
                for (field, verdict) in next where verdict.state != .empty {
                    next[field] = .failed(.networkError)
                }
            }
            return next
        }
        .startWith(initial)
    }
}
