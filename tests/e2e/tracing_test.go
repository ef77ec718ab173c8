package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/connect-paimon/connect-paimon/internal/testenv"
)

// spanSink collects the spans an OTLP receiver got, with the resource
// attributes they came with.
type spanSink struct {
	mu        sync.Mutex
	spans     map[string][]*tracepb.Span
	resources []map[string]string
	requests  int
}

func newSpanSink() *spanSink { return &spanSink{spans: map[string][]*tracepb.Span{}} }

func (s *spanSink) add(req *coltrace.ExportTraceServiceRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	for _, rs := range req.GetResourceSpans() {
		res := map[string]string{}
		for _, kv := range rs.GetResource().GetAttributes() {
			res[kv.GetKey()] = kv.GetValue().GetStringValue()
		}
		s.resources = append(s.resources, res)
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				s.spans[sp.GetName()] = append(s.spans[sp.GetName()], sp)
			}
		}
	}
}

func (s *spanSink) has(names ...string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		if len(s.spans[n]) == 0 {
			return false
		}
	}
	return true
}

func (s *spanSink) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for n, v := range s.spans {
		out = append(out, fmt.Sprintf("%s×%d", n, len(v)))
	}
	sort.Strings(out)
	return out
}

func attr(sp *tracepb.Span, key string) (string, bool) {
	for _, kv := range sp.GetAttributes() {
		if kv.GetKey() == key {
			v := kv.GetValue()
			switch {
			case v.GetStringValue() != "":
				return v.GetStringValue(), true
			default:
				return fmt.Sprint(v.GetIntValue()), true
			}
		}
	}
	return "", false
}

// grpcTraceServer is an OTLP/gRPC trace receiver.
type grpcTraceServer struct {
	coltrace.UnimplementedTraceServiceServer
	sink *spanSink
}

func (g *grpcTraceServer) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	g.sink.add(req)
	return &coltrace.ExportTraceServiceResponse{}, nil
}

// TestBinaryOpenTelemetryTracer runs the real binary with the
// open_telemetry_collector tracer pointed at an in-process OTLP/HTTP
// receiver and an OTLP/gRPC one, reading a copy of the fixture table with a
// consumer: both receivers get the input's own spans — paimon.plan,
// paimon.read_split, paimon.commit — with the table, snapshot and consumer
// attributes, under the configured service name and tags.
func TestBinaryOpenTelemetryTracer(t *testing.T) {
	root := testenv.RepoRoot(t)
	wh := filepath.Join(t.TempDir(), "warehouse")
	testenv.CopyTree(t, filepath.Join(root, "resources", "fixtures", "warehouse"), wh)

	httpSink := newSpanSink()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "want POST /v1/traces as protobuf", http.StatusBadRequest)
			return
		}
		b, err := io.ReadAll(r.Body)
		req := &coltrace.ExportTraceServiceRequest{}
		if err == nil {
			err = proto.Unmarshal(b, req)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		httpSink.add(req)
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	defer recv.Close()

	grpcSink := newSpanSink()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(gs, &grpcTraceServer{sink: grpcSink})
	go func() { _ = gs.Serve(l) }()
	defer gs.Stop()

	d := startDaemon(t, fmt.Sprintf(`
logger: {level: warn}
http: {enabled: false}
metrics: {none: {}}
tracer:
  open_telemetry_collector:
    service: paimon-e2e
    http: [ {address: %q} ]
    grpc: [ {address: %q, secure: false} ]
    tags: {deployment: test}
    sampling: {enabled: true, ratio: 1}
input:
  paimon:
    warehouse: %s
    table: demo.orders
    consumer_id: traced
    commit_period: 100ms
output:
  drop: {}
`, strings.TrimPrefix(recv.URL, "http://"), l.Addr().String(), wh))

	want := []string{"paimon.plan", "paimon.read_split", "paimon.commit"}
	// The batch span processor exports every 5 s by default.
	d.waitUntil(t, 3*time.Minute, func() bool { return httpSink.has(want...) && grpcSink.has(want...) }, func() string {
		return fmt.Sprintf("spans: http %v, grpc %v; want %v", httpSink.names(), grpcSink.names(), want)
	})
	d.stop(t)

	t.Logf("spans: http %v, grpc %v", httpSink.names(), grpcSink.names())
	for name, sink := range map[string]*spanSink{"http": httpSink, "grpc": grpcSink} {
		sink.mu.Lock()
		for _, res := range sink.resources {
			if res["service.name"] != "paimon-e2e" || res["deployment"] != "test" {
				t.Errorf("%s: resource %v, want service.name paimon-e2e and the tag deployment=test", name, res)
			}
		}
		for _, n := range want {
			for _, sp := range sink.spans[n] {
				if v, _ := attr(sp, "paimon.table"); v != "demo.orders" {
					t.Errorf("%s: span %s has paimon.table %q", name, n, v)
				}
				if sp.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR {
					t.Errorf("%s: span %s failed: %s", name, n, sp.GetStatus().GetMessage())
				}
			}
		}
		plan := sink.spans["paimon.plan"][0]
		if v, ok := attr(plan, "paimon.snapshot_id"); !ok || v == "0" {
			t.Errorf("%s: paimon.plan has no snapshot id (%q)", name, v)
		}
		rows := 0
		for _, sp := range sink.spans["paimon.read_split"] {
			v, _ := attr(sp, "paimon.rows")
			var n int
			fmt.Sscan(v, &n)
			rows += n
		}
		if want := len(testenv.ReadLines(t, filepath.Join(root, "resources", "fixtures", "expected", "demo.orders", "full.jsonl"))); rows != want {
			t.Errorf("%s: the read_split spans count %d rows, the table has %d", name, rows, want)
		}
		for _, sp := range sink.spans["paimon.commit"] {
			if v, _ := attr(sp, "paimon.consumer_id"); v != "traced" {
				t.Errorf("%s: paimon.commit consumer %q", name, v)
			}
		}
		sink.mu.Unlock()
	}
}
