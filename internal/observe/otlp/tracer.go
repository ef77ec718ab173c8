// Package otlp is the binary's `open_telemetry_collector` tracer: the
// OpenTelemetry SDK with OTLP exporters over HTTP and gRPC, with Redpanda
// Connect's field names so a Connect user's `tracer:` section carries over.
// Benthos hands the provider to every component (`Resources.OtelTracer`),
// so the paimon input's own spans (plan, split read, consumer commit) go
// out with Benthos' message spans.
package otlp

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// Name is the tracer's registered name (Connect's).
const Name = "open_telemetry_collector"

const (
	fService  = "service"
	fHTTP     = "http"
	fGRPC     = "grpc"
	fAddress  = "address"
	fURL      = "url"
	fSecure   = "secure"
	fTags     = "tags"
	fSampling = "sampling"
	fEnabled  = "enabled"
	fRatio    = "ratio"
)

func collectorFields(port string, secureDoc string) []*service.ConfigField {
	return []*service.ConfigField{
		service.NewStringField(fAddress).Description("The endpoint of a collector to send tracing events to, host:port.").
			Example("localhost:" + port).Optional(),
		service.NewStringField(fURL).Description("The same as `address` (Connect's older name); `address` wins.").
			Deprecated().Optional(),
		service.NewBoolField(fSecure).Description(secureDoc).Default(false),
	}
}

// Spec is the tracer's configuration spec.
func Spec() *service.ConfigSpec {
	return service.NewConfigSpec().
		Stable().
		Summary("Send tracing events to an https://opentelemetry.io/docs/collector/[Open Telemetry collector^].").
		Description(`
Built on the OpenTelemetry Go SDK and its OTLP exporters, with the field names of Redpanda Connect's
`+"`open_telemetry_collector`"+` tracer. Spans are batched and sent to every collector listed.
Besides Benthos' own spans, the paimon input traces `+"`paimon.plan`"+` (planning one snapshot),
`+"`paimon.read_split`"+` (reading one split) and `+"`paimon.commit`"+` (writing the consumer position).`).
		Fields(
			service.NewStringField(fService).Description("The name of the service in traces.").Default("connect-paimon"),
			service.NewObjectListField(fHTTP, collectorFields("4318", "Connect to the collector over HTTPS.")...).
				Description("A list of http collectors.").Default([]any{}),
			service.NewObjectListField(fGRPC, collectorFields("4317", "Connect to the collector with client transport security.")...).
				Description("A list of grpc collectors.").Default([]any{}),
			service.NewStringMapField(fTags).Description("A map of tags added to all tracing spans (resource attributes).").
				Advanced().Default(map[string]any{}),
			service.NewObjectField(fSampling,
				service.NewBoolField(fEnabled).Description("Whether to enable sampling.").Default(false),
				service.NewFloatField(fRatio).Description("The ratio of traces to sample, 0 to 1.").Examples(0.85, 0.5).Optional(),
			).Description("Settings for trace sampling; without it every trace is recorded."),
		)
}

func init() {
	service.MustRegisterOtelTracerProvider(Name, Spec(), func(conf *service.ParsedConfig) (trace.TracerProvider, error) {
		return New(context.Background(), conf)
	})
}

// New builds a tracer provider from its parsed config. The exporters
// connect lazily: a collector that is down costs dropped spans, never a
// failed start.
func New(ctx context.Context, conf *service.ParsedConfig) (*sdktrace.TracerProvider, error) {
	name, err := conf.FieldString(fService)
	if err != nil {
		return nil, err
	}
	tags, err := conf.FieldStringMap(fTags)
	if err != nil {
		return nil, err
	}
	attrs := []attribute.KeyValue{semconv.ServiceNameKey.String(name)}
	for k, v := range tags {
		attrs = append(attrs, attribute.String(k, v))
	}
	opts := []sdktrace.TracerProviderOption{
		sdktrace.WithResource(resource.NewWithAttributes(semconv.SchemaURL, attrs...)),
	}

	sampler, err := samplerOf(conf)
	if err != nil {
		return nil, err
	}
	opts = append(opts, sdktrace.WithSampler(sampler))

	exporters, err := collectorExporters(conf, fHTTP, nil, func(addr string, secure bool) (sdktrace.SpanExporter, error) {
		o := []otlptracehttp.Option{otlptracehttp.WithEndpoint(addr)}
		if !secure {
			o = append(o, otlptracehttp.WithInsecure())
		}
		return otlptracehttp.New(ctx, o...)
	})
	if err != nil {
		return nil, err
	}
	exporters, err = collectorExporters(conf, fGRPC, exporters, func(addr string, secure bool) (sdktrace.SpanExporter, error) {
		o := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(addr)}
		if !secure {
			o = append(o, otlptracegrpc.WithInsecure())
		}
		return otlptracegrpc.New(ctx, o...)
	})
	if err != nil {
		return nil, err
	}
	if len(exporters) == 0 {
		return nil, fmt.Errorf("%s: neither %s nor %s lists a collector", Name, fHTTP, fGRPC)
	}
	for _, e := range exporters {
		opts = append(opts, sdktrace.WithBatcher(e))
	}
	return sdktrace.NewTracerProvider(opts...), nil
}

// collectorExporters appends to exporters one exporter, made by newExporter
// for the list's protocol, per collector listed under list.
func collectorExporters(conf *service.ParsedConfig, list string, exporters []sdktrace.SpanExporter,
	newExporter func(addr string, secure bool) (sdktrace.SpanExporter, error)) ([]sdktrace.SpanExporter, error) {
	cs, err := conf.FieldObjectList(list)
	if err != nil {
		return nil, err
	}
	for i, c := range cs {
		addr, secure, err := collector(c, list, i)
		if err != nil {
			return nil, err
		}
		exp, err := newExporter(addr, secure)
		if err != nil {
			return nil, fmt.Errorf("%s[%d] %s: %w", list, i, addr, err)
		}
		exporters = append(exporters, exp)
	}
	return exporters, nil
}

// collector reads one collector's endpoint. The OTLP exporters want
// host:port; a URL (Connect's examples sometimes show one) is reduced to
// its host, its scheme deciding secure when given.
func collector(c *service.ParsedConfig, list string, i int) (addr string, secure bool, err error) {
	if secure, err = c.FieldBool(fSecure); err != nil {
		return "", false, err
	}
	for _, f := range []string{fAddress, fURL} {
		if c.Contains(f) {
			if addr, err = c.FieldString(f); err != nil {
				return "", false, err
			}
			if addr != "" {
				break
			}
		}
	}
	if addr == "" {
		return "", false, fmt.Errorf("%s[%d]: %s is required", list, i, fAddress)
	}
	if strings.Contains(addr, "://") {
		u, perr := url.Parse(addr)
		if perr != nil || u.Host == "" {
			return "", false, fmt.Errorf("%s[%d].%s: %q is neither host:port nor a URL", list, i, fAddress, addr)
		}
		if u.Path != "" && u.Path != "/" {
			return "", false, fmt.Errorf("%s[%d].%s: %q has a path; give host:port (the exporter adds /v1/traces)", list, i, fAddress, addr)
		}
		addr, secure = u.Host, secure || u.Scheme == "https"
	}
	return addr, secure, nil
}

func samplerOf(conf *service.ParsedConfig) (sdktrace.Sampler, error) {
	if !conf.Contains(fSampling) {
		return sdktrace.AlwaysSample(), nil
	}
	on, err := conf.FieldBool(fSampling, fEnabled)
	if err != nil {
		return nil, err
	}
	if !on {
		return sdktrace.AlwaysSample(), nil
	}
	if !conf.Contains(fSampling, fRatio) {
		return nil, fmt.Errorf("%s.%s is true but %s.%s is not set", fSampling, fEnabled, fSampling, fRatio)
	}
	r, err := conf.FieldFloat(fSampling, fRatio)
	if err != nil {
		return nil, err
	}
	if r < 0 || r > 1 {
		return nil, fmt.Errorf("%s.%s: %v is not between 0 and 1", fSampling, fRatio, r)
	}
	// Parent-based: a message that arrived with a sampled trace stays
	// traced through the pipeline.
	return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r)), nil
}
