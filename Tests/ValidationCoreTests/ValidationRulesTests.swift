import Contracts
import Testing
import ValidationCore

@Suite("validation rules", .timeLimit(.minutes(1)))
struct ValidationRulesTests {
    let rules = ValidationRules()
}
