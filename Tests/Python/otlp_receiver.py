"""An OTLP/HTTP trace receiver for the tests, checked with the OpenTelemetry project's own definitions.

Listens on a random loopback port (printed as `port=N` on the first line of stdout), accepts
`POST /v1/traces`, parses each JSON body with `google.protobuf.json_format.Parse` into
`opentelemetry.proto.collector.trace.v1.trace_service_pb2.ExportTraceServiceRequest` (PyPI
`opentelemetry-proto`), and answers 200 with `{}`; a body that does not parse is answered 400 and
counted. Every span received is appended to the file given as the first argument, one JSON object a
line: service (the resource's `service.name`), trace_id, span_id, parent_span_id (hex, "" for a
root), name, kind (the enum's number); a body that failed to parse writes {"error": "..."}.

Run with `--check FILE`, it parses every line of FILE (OTLP JSON lines, as `--trace-file` writes
them) the same way and prints how many spans it read, or exits 1 naming the first bad line.
"""
import http.server
import json
import sys
import threading

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2


def spans_of(body):
    request = json_format.Parse(body, trace_service_pb2.ExportTraceServiceRequest())
    spans = []
    for resource_spans in request.resource_spans:
        service = ""
        for attribute in resource_spans.resource.attributes:
            if attribute.key == "service.name":
                service = attribute.value.string_value
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append({
                    "service": service,
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": span.kind,
                    "attributes": {
                        attribute.key: json_format.MessageToDict(attribute.value) for attribute in span.attributes
                    },
                })
    return spans


def check(path):
    count = 0
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                count += len(spans_of(line))
            except Exception as error:  # noqa: BLE001 - report any parse failure
                print(f"line {number}: {error}", file=sys.stderr)
                return 1
    print(f"spans={count}")
    return 0


def serve(output):
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if self.path != "/v1/traces":
                self.send_response(404)
                self.end_headers()
                return
            try:
                records = spans_of(body.decode("utf-8"))
                status = 200
            except Exception as error:  # noqa: BLE001 - report any parse failure
                records = [{"error": str(error)}]
                status = 400
            with lock, open(output, "a", encoding="utf-8") as file:
                for record in records:
                    file.write(json.dumps(record) + "\n")
            answer = b"{}"
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *arguments):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"port={server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    if len(sys.argv) != 2:
        print("usage: otlp_receiver.py SPANS_FILE | --check OTLP_JSON_LINES", file=sys.stderr)
        sys.exit(64)
    serve(sys.argv[1])
