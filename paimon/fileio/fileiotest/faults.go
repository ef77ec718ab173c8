package fileiotest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"
)

// Fault is one kind of injected failure.
type Fault int

// The faults a FaultHandler injects. Each models a failure seen on real
// object stores: overloaded front ends (5xx, SlowDown), slow or stalled
// connections, resets before and after the server acted on the request,
// and bodies cut short with or without a consistent Content-Length.
const (
	faultNone Fault = iota // no fault: the request passes
	Fault500
	Fault503SlowDown
	FaultDelay
	FaultStall
	FaultResetBefore
	FaultResetAfter
	FaultTruncate
	FaultShortBody
	numFaults
)

func (f Fault) String() string {
	return [...]string{"none", "500", "503-slowdown", "delay", "stall", "reset-before", "reset-after", "truncate", "short-body"}[f]
}

// FaultConfig sets the fault rate and shape. The same Seed gives the same
// sequence of decisions for the same sequence of requests.
type FaultConfig struct {
	// Rate is the probability that a request gets a fault, in [0, 1].
	Rate float64
	// Seed seeds the decisions.
	Seed uint64
	// Delay is the extra latency of FaultDelay; Stall that of FaultStall,
	// which should exceed the client's per-attempt timeout.
	Delay, Stall time.Duration
	// Kinds restricts the faults injected; empty means all.
	Kinds []Fault
}

// FaultHandler wraps an S3 handler (gofakes3, or an httputil.ReverseProxy
// to a real server) and injects faults. It counts every request it sees.
type FaultHandler struct {
	next http.Handler
	cfg  FaultConfig

	mu       sync.Mutex
	rng      *rand.Rand
	requests int
	byMethod map[string]int
	faults   map[Fault]int
}

// NewFaultHandler wraps next.
func NewFaultHandler(next http.Handler, cfg FaultConfig) *FaultHandler {
	if len(cfg.Kinds) == 0 {
		for k := Fault500; k < numFaults; k++ {
			cfg.Kinds = append(cfg.Kinds, k)
		}
	}
	return &FaultHandler{next: next, cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0xfa17)),
		byMethod: map[string]int{}, faults: map[Fault]int{}}
}

// SetRate changes the fault rate (0 turns injection off for setup steps).
func (h *FaultHandler) SetRate(r float64) {
	h.mu.Lock()
	h.cfg.Rate = r
	h.mu.Unlock()
}

// Stats returns the number of requests, by method ("GET" includes
// listings), and the faults injected so far.
func (h *FaultHandler) Stats() (requests int, byMethod map[string]int, faults map[Fault]int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	bm := make(map[string]int, len(h.byMethod))
	for k, v := range h.byMethod {
		bm[k] = v
	}
	fs := make(map[Fault]int, len(h.faults))
	for k, v := range h.faults {
		fs[k] = v
	}
	return h.requests, bm, fs
}

// Reset zeroes the counters.
func (h *FaultHandler) Reset() {
	h.mu.Lock()
	h.requests, h.byMethod, h.faults = 0, map[string]int{}, map[Fault]int{}
	h.mu.Unlock()
}

func (h *FaultHandler) decide(r *http.Request) Fault {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests++
	m := r.Method
	if m == http.MethodGet && r.URL.Query().Has("list-type") {
		m = "LIST"
	}
	h.byMethod[m]++
	if h.rng.Float64() >= h.cfg.Rate {
		return faultNone
	}
	f := h.cfg.Kinds[h.rng.IntN(len(h.cfg.Kinds))]
	if (f == FaultTruncate || f == FaultShortBody) && r.Method != http.MethodGet {
		f = Fault500 // only GET bodies can be cut
	}
	h.faults[f]++
	return f
}

// ServeHTTP implements http.Handler.
func (h *FaultHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch f := h.decide(r); f {
	case faultNone:
		h.next.ServeHTTP(w, r)
	case Fault500:
		s3Error(w, r, http.StatusInternalServerError, "InternalError", "injected fault")
	case Fault503SlowDown:
		s3Error(w, r, http.StatusServiceUnavailable, "SlowDown", "injected throttling")
	case FaultDelay, FaultStall:
		d := h.cfg.Delay
		if f == FaultStall {
			d = h.cfg.Stall
		}
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		h.next.ServeHTTP(w, r)
	case FaultResetBefore:
		reset(w)
	case FaultResetAfter:
		// The server acts (a PUT lands), the client never hears of it.
		h.next.ServeHTTP(httptest.NewRecorder(), r)
		reset(w)
	case FaultTruncate, FaultShortBody:
		rec := httptest.NewRecorder()
		h.next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		if rec.Code >= 300 || len(body) < 2 {
			copyResponse(w, rec, body)
			return
		}
		half := body[:len(body)/2]
		if f == FaultShortBody {
			// A consistent but short response: only a length check catches it.
			rec.Header().Set("Content-Length", strconv.Itoa(len(half)))
			copyResponse(w, rec, half)
			return
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		w.Write(half)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		reset(w)
	}
}

func copyResponse(w http.ResponseWriter, rec *httptest.ResponseRecorder, body []byte) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(body)
}

func s3Error(w http.ResponseWriter, r *http.Request, code int, s3code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, s3code, msg)
	}
}

// reset aborts the connection with a TCP RST (linger 0), which the client
// sees as "connection reset by peer" rather than a clean EOF.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if buf != nil {
		buf.Flush()
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}
