import Metrics
import Testing

@Suite("Exposition", .timeLimit(.minutes(1)))
struct ExpositionTests {
    @Test("a counter with labels: HELP, TYPE and one line per sample")
    func counter() {
        var family = MetricFamily("reactive_login_requests_total", .counter, help: "Calls finished.")
        family.add(3, ["method": "auth.login", "code": "ok"])
        family.add(1, ["method": "auth.login", "code": "timeout"])
        #expect(
            Exposition.text([family]) == """
                # HELP reactive_login_requests_total Calls finished.
                # TYPE reactive_login_requests_total counter
                reactive_login_requests_total{method="auth.login",code="ok"} 3
                reactive_login_requests_total{method="auth.login",code="timeout"} 1

                """)
    }
}
