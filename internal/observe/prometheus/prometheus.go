// Package prometheus is the binary's `prometheus` metrics exporter on
// client_golang, with Redpanda Connect's field names so a Connect user's
// `metrics:` section carries over. Benthos serves it on the HTTP server's
// /metrics (and /stats) because the exporter has a HandlerFunc; it can also
// push to a Pushgateway and write a text file on shutdown, as Connect's does.
package prometheus

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/push"
	"github.com/redpanda-data/benthos/v4/public/service"
)

// Name is the exporter's registered name (Connect's).
const Name = "prometheus"

const (
	fUseHistogram  = "use_histogram_timing"
	fBuckets       = "histogram_buckets"
	fQuantiles     = "summary_quantiles_objectives"
	fQuantile      = "quantile"
	fQuantileError = "error"
	fProcess       = "add_process_metrics"
	fGo            = "add_go_metrics"
	fPushURL       = "push_url"
	fPushInterval  = "push_interval"
	fPushJob       = "push_job_name"
	fPushAuth      = "push_basic_auth"
	fPushUser      = "username"
	fPushPassword  = "password"
	fFileOutput    = "file_output_path"
)

// Spec is the exporter's configuration spec.
func Spec() *service.ConfigSpec {
	return service.NewConfigSpec().
		Stable().
		Summary("Host endpoints (`/metrics` and `/stats`) for Prometheus scraping.").
		Description(`
Built on https://github.com/prometheus/client_golang[client_golang], with the field names of
Redpanda Connect's `+"`prometheus`"+` metrics. Metric names are Benthos' (`+"`input_received`"+`,
`+"`paimon_rows_read`"+`, ...), labels are the ones each component declares (`+"`label`"+`, `+"`path`"+`, and
the paimon input's `+"`table`"+`). Timers are in nanoseconds as summaries; with
`+"`use_histogram_timing`"+` they are histograms in seconds, as Connect's.`).
		Fields(
			service.NewBoolField(fUseHistogram).
				Description("Export timing metrics as histograms (values in seconds) rather than summaries (values in nanoseconds).").
				Advanced().Default(false),
			service.NewFloatListField(fBuckets).
				Description("Histogram buckets in seconds; empty means client_golang's defaults.").
				Advanced().Default([]any{}),
			service.NewObjectListField(fQuantiles,
				service.NewFloatField(fQuantile).Description("A quantile to compute, 0 < q < 1."),
				service.NewFloatField(fQuantileError).Description("Its allowed absolute error."),
			).Description("Quantiles of the timing summaries.").
				Advanced().Default([]any{
				map[string]any{fQuantile: 0.5, fQuantileError: 0.05},
				map[string]any{fQuantile: 0.9, fQuantileError: 0.01},
				map[string]any{fQuantile: 0.99, fQuantileError: 0.001},
			}),
			service.NewBoolField(fProcess).Description("Also export the process' CPU, memory and file descriptor metrics.").Advanced().Default(false),
			service.NewBoolField(fGo).Description("Also export the Go runtime's metrics.").Advanced().Default(false),
			service.NewURLField(fPushURL).Description("A Prometheus Pushgateway to push metrics to as well.").Advanced().Optional(),
			service.NewDurationField(fPushInterval).Description("How often to push; without it metrics are pushed once, on shutdown.").Advanced().Optional(),
			service.NewStringField(fPushJob).Description("The job label pushed metrics get.").Advanced().Default("benthos_push"),
			service.NewObjectField(fPushAuth,
				service.NewStringField(fPushUser).Default(""),
				service.NewStringField(fPushPassword).Secret().Default(""),
			).Description("Basic authentication for the Pushgateway.").Advanced().Optional(),
			service.NewStringField(fFileOutput).Description("A file the metrics are written to, in the text format, on shutdown.").Advanced().Default(""),
		)
}

func init() {
	service.MustRegisterMetricsExporter(Name, Spec(), func(conf *service.ParsedConfig, log *service.Logger) (service.MetricsExporter, error) {
		return New(conf, log)
	})
}

// Exporter is a service.MetricsExporter backed by its own registry, so two
// streams of one process (tests, streams mode) never collide on the global
// default registry.
type Exporter struct {
	log       *service.Logger
	reg       *prometheus.Registry
	histogram bool
	buckets   []float64
	quantiles map[float64]float64

	mu       sync.Mutex
	counters map[string]*named[*prometheus.CounterVec]
	gauges   map[string]*named[*prometheus.GaugeVec]
	timers   map[string]*named[prometheus.ObserverVec]

	pusher    *push.Pusher
	stopPush  chan struct{}
	pushDone  chan struct{}
	filePath  string
	closeOnce sync.Once
}

// named remembers the label keys a metric was first registered with:
// Benthos asks for the same name from every component, and Prometheus
// refuses one name with two label sets.
type named[V any] struct {
	vec  V
	keys []string
}

// New builds an exporter from its parsed config.
func New(conf *service.ParsedConfig, log *service.Logger) (*Exporter, error) {
	e := &Exporter{
		log:      log,
		reg:      prometheus.NewRegistry(),
		counters: map[string]*named[*prometheus.CounterVec]{},
		gauges:   map[string]*named[*prometheus.GaugeVec]{},
		timers:   map[string]*named[prometheus.ObserverVec]{},
	}
	var err error
	if e.histogram, err = conf.FieldBool(fUseHistogram); err != nil {
		return nil, err
	}
	if e.buckets, err = conf.FieldFloatList(fBuckets); err != nil {
		return nil, err
	}
	if len(e.buckets) == 0 {
		e.buckets = prometheus.DefBuckets
	}
	for i := 1; i < len(e.buckets); i++ {
		if e.buckets[i] <= e.buckets[i-1] {
			return nil, fmt.Errorf("%s: buckets must increase, %v does not", fBuckets, e.buckets)
		}
	}
	qs, err := conf.FieldObjectList(fQuantiles)
	if err != nil {
		return nil, err
	}
	e.quantiles = map[float64]float64{}
	for _, q := range qs {
		v, err := q.FieldFloat(fQuantile)
		if err != nil {
			return nil, err
		}
		ev, err := q.FieldFloat(fQuantileError)
		if err != nil {
			return nil, err
		}
		if v <= 0 || v >= 1 {
			return nil, fmt.Errorf("%s: quantile %v is not between 0 and 1", fQuantiles, v)
		}
		e.quantiles[v] = ev
	}
	if b, err := conf.FieldBool(fProcess); err != nil {
		return nil, err
	} else if b {
		e.reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	if b, err := conf.FieldBool(fGo); err != nil {
		return nil, err
	} else if b {
		e.reg.MustRegister(collectors.NewGoCollector())
	}
	if e.filePath, err = conf.FieldString(fFileOutput); err != nil {
		return nil, err
	}
	if conf.Contains(fPushURL) {
		if err := e.startPush(conf); err != nil {
			return nil, err
		}
	} else if conf.Contains(fPushInterval) {
		return nil, fmt.Errorf("%s is set but %s is not: there is nowhere to push", fPushInterval, fPushURL)
	}
	return e, nil
}

func (e *Exporter) startPush(conf *service.ParsedConfig) error {
	u, err := conf.FieldURL(fPushURL)
	if err != nil {
		return err
	}
	job, err := conf.FieldString(fPushJob)
	if err != nil {
		return err
	}
	e.pusher = push.New(u.String(), job).Gatherer(e.reg)
	if conf.Contains(fPushAuth) {
		user, err := conf.FieldString(fPushAuth, fPushUser)
		if err != nil {
			return err
		}
		pass, err := conf.FieldString(fPushAuth, fPushPassword)
		if err != nil {
			return err
		}
		if user != "" || pass != "" {
			e.pusher = e.pusher.BasicAuth(user, pass)
		}
	}
	if !conf.Contains(fPushInterval) {
		return nil
	}
	every, err := conf.FieldDuration(fPushInterval)
	if err != nil {
		return err
	}
	if every <= 0 {
		return fmt.Errorf("%s: %v is not a positive duration", fPushInterval, every)
	}
	e.stopPush, e.pushDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(e.pushDone)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-e.stopPush:
				return
			case <-t.C:
				if err := e.pusher.Push(); err != nil {
					e.log.Warnf("prometheus: push to %s: %v", u, err)
				}
			}
		}
	}()
	return nil
}

// HandlerFunc serves the registry in the Prometheus exposition format;
// Benthos mounts it on /metrics and /stats.
func (e *Exporter) HandlerFunc() http.HandlerFunc {
	return promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{ErrorLog: promLogger{e.log}}).ServeHTTP
}

type promLogger struct{ log *service.Logger }

func (l promLogger) Println(v ...any) {
	if l.log != nil {
		l.log.Error(fmt.Sprint(v...))
	}
}

// sanitise makes a Benthos path a valid Prometheus name: Benthos names are
// already snake case, but user-defined metric names from the `metric`
// processor may contain dots or dashes.
func sanitise(name string) string {
	var b strings.Builder
	for i, r := range name {
		ok := r == '_' || r == ':' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func sameKeys(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// lookup returns the vector registered under name, making it with mk the
// first time; a later request with other label keys gets nil (logged), as
// Prometheus cannot hold both.
func lookup[V any](e *Exporter, m map[string]*named[V], name string, keys []string, mk func() (V, prometheus.Collector)) (V, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n, ok := m[name]; ok {
		if !sameKeys(n.keys, keys) {
			e.log.Errorf("prometheus: metric %s registered with labels %v, asked again with %v: the second is not exported", name, n.keys, keys)
			var zero V
			return zero, false
		}
		return n.vec, true
	}
	v, c := mk()
	if err := e.reg.Register(c); err != nil {
		e.log.Errorf("prometheus: metric %s: %v", name, err)
		var zero V
		return zero, false
	}
	m[name] = &named[V]{vec: v, keys: append([]string(nil), keys...)}
	return v, true
}

const help = "Benthos metric"

// NewCounterCtor implements service.MetricsExporter.
func (e *Exporter) NewCounterCtor(path string, labelKeys ...string) service.MetricsExporterCounterCtor {
	name := sanitise(path)
	vec, ok := lookup(e, e.counters, name, labelKeys, func() (*prometheus.CounterVec, prometheus.Collector) {
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labelKeys)
		return v, v
	})
	return func(labelValues ...string) service.MetricsExporterCounter {
		if !ok {
			return nop{}
		}
		return counter{vec.WithLabelValues(labelValues...)}
	}
}

// NewGaugeCtor implements service.MetricsExporter.
func (e *Exporter) NewGaugeCtor(path string, labelKeys ...string) service.MetricsExporterGaugeCtor {
	name := sanitise(path)
	vec, ok := lookup(e, e.gauges, name, labelKeys, func() (*prometheus.GaugeVec, prometheus.Collector) {
		v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labelKeys)
		return v, v
	})
	return func(labelValues ...string) service.MetricsExporterGauge {
		if !ok {
			return nop{}
		}
		return gauge{vec.WithLabelValues(labelValues...)}
	}
}

// NewTimerCtor implements service.MetricsExporter.
func (e *Exporter) NewTimerCtor(path string, labelKeys ...string) service.MetricsExporterTimerCtor {
	name := sanitise(path)
	vec, ok := lookup(e, e.timers, name, labelKeys, func() (prometheus.ObserverVec, prometheus.Collector) {
		if e.histogram {
			v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: e.buckets}, labelKeys)
			return v, v
		}
		v := prometheus.NewSummaryVec(prometheus.SummaryOpts{Name: name, Help: help, Objectives: e.quantiles}, labelKeys)
		return v, v
	})
	scale := 1.0
	if e.histogram {
		// Connect's convention: histogram timings in seconds, so the
		// default buckets fit.
		scale = 1e-9
	}
	return func(labelValues ...string) service.MetricsExporterTimer {
		if !ok {
			return nop{}
		}
		return timer{vec.WithLabelValues(labelValues...), scale}
	}
}

type counter struct{ c prometheus.Counter }

func (c counter) Incr(n int64)          { c.c.Add(float64(n)) }
func (c counter) IncrFloat64(n float64) { c.c.Add(n) }

type gauge struct{ g prometheus.Gauge }

func (g gauge) Set(n int64)          { g.g.Set(float64(n)) }
func (g gauge) SetFloat64(n float64) { g.g.Set(n) }

type timer struct {
	o     prometheus.Observer
	scale float64
}

func (t timer) Timing(ns int64) { t.o.Observe(float64(ns) * t.scale) }

type nop struct{}

func (nop) Incr(int64)   {}
func (nop) Set(int64)    {}
func (nop) Timing(int64) {}

// Close stops pushing, pushes and writes the file a last time.
func (e *Exporter) Close(ctx context.Context) error {
	var errs []error
	e.closeOnce.Do(func() {
		if e.stopPush != nil {
			close(e.stopPush)
			<-e.pushDone
		}
		if e.pusher != nil {
			if err := e.pusher.PushContext(ctx); err != nil {
				errs = append(errs, fmt.Errorf("prometheus: final push: %w", err))
			}
		}
		if e.filePath != "" {
			if err := prometheus.WriteToTextfile(e.filePath, e.reg); err != nil {
				errs = append(errs, fmt.Errorf("prometheus: %s %s: %w", fFileOutput, e.filePath, err))
			}
		}
	})
	return errors.Join(errs...)
}
