// Package kafkaconn is how the binary's Kafka clients connect: the
// `kafka_franz` output and the `paimon` input's consumer group share these
// fields (Redpanda Connect's names) and turn them into franz-go options the
// same way.
package kafkaconn

import (
	"errors"
	"fmt"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// SeedBrokersName is the one required field: its presence says a config
// holds a connection at all.
const SeedBrokersName = fSeedBrokers

// Field names (Connect's).
const (
	fSeedBrokers = "seed_brokers"
	fClientID    = "client_id"
	fTLS         = "tls"
	fSASL        = "sasl"
)

// The fields of one sasl entry.
const (
	fSASLMechanism = "mechanism"
	fSASLUsername  = "username"
	fSASLPassword  = "password"
	fSASLToken     = "token"
	fSASLExt       = "extensions"
)

// SeedBrokersField is the seed_brokers field.
func SeedBrokersField() *service.ConfigField {
	return service.NewStringListField(fSeedBrokers).
		Description("Broker addresses to bootstrap from. An item may hold several addresses separated by commas.").
		Example([]string{"localhost:9092"}).
		Example([]string{"foo:9092", "bar:9092"}).
		Example([]string{"foo:9092,bar:9092"})
}

// ClientIDField is the client_id field with its default.
func ClientIDField(def string) *service.ConfigField {
	return service.NewStringField(fClientID).
		Description("The client id announced to the brokers.").
		Default(def).
		Advanced()
}

// TLSField is the tls field.
func TLSField() *service.ConfigField { return service.NewTLSToggledField(fTLS) }

// SASLField is the sasl field.
func SASLField() *service.ConfigField {
	return service.NewObjectListField(fSASL,
		service.NewStringAnnotatedEnumField(fSASLMechanism, map[string]string{
			"none":          "No authentication.",
			"PLAIN":         "Plain text username and password.",
			"SCRAM-SHA-256": "SCRAM with SHA-256.",
			"SCRAM-SHA-512": "SCRAM with SHA-512.",
			"OAUTHBEARER":   "A static OAuth bearer token.",
		}).Description("The SASL mechanism."),
		service.NewStringField(fSASLUsername).Description("Username (PLAIN, SCRAM).").Default(""),
		service.NewStringField(fSASLPassword).Description("Password (PLAIN, SCRAM).").Default("").Secret(),
		service.NewStringField(fSASLToken).Description("Token (OAUTHBEARER).").Default("").Secret(),
		service.NewStringMapField(fSASLExt).Description("Key/value extensions sent with OAUTHBEARER.").Optional(),
	).
		Description("SASL mechanisms to try in order; the first the broker supports is used.").
		Optional().
		Advanced()
}

// Seeds returns the seed brokers, comma-separated items split; at least
// one is required.
func Seeds(conf *service.ParsedConfig) ([]string, error) {
	brokers, err := conf.FieldStringList(fSeedBrokers)
	if err != nil {
		return nil, err
	}
	seeds := SplitSeeds(brokers)
	if len(seeds) == 0 {
		return nil, fmt.Errorf("%s: at least one seed broker is required", fSeedBrokers)
	}
	return seeds, nil
}

// SplitSeeds returns the broker addresses of items that may each hold
// several, separated by commas.
func SplitSeeds(items []string) []string {
	var seeds []string
	for _, b := range items {
		for _, s := range strings.Split(b, ",") {
			if s = strings.TrimSpace(s); s != "" {
				seeds = append(seeds, s)
			}
		}
	}
	return seeds
}

// Mechanism is the SASL mechanism of one sasl entry's values; nil for
// "none" or "".
func Mechanism(mech, user, pass, token string, ext map[string]string) (sasl.Mechanism, error) {
	switch mech {
	case "", "none":
		return nil, nil
	case "PLAIN":
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: pass}.AsSha512Mechanism(), nil
	case "OAUTHBEARER":
		return oauth.Auth{Token: token, Extensions: ext}.AsMechanism(), nil
	}
	return nil, fmt.Errorf("unsupported mechanism %q (none, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER)", mech)
}

// Opts returns the connection options of conf: seed brokers, client id,
// TLS and SASL.
func Opts(conf *service.ParsedConfig) ([]kgo.Opt, error) {
	seeds, err := Seeds(conf)
	if err != nil {
		return nil, err
	}
	opts := []kgo.Opt{kgo.SeedBrokers(seeds...)}
	r := fields{conf: conf}
	if id := r.str(fClientID); id != "" {
		opts = append(opts, kgo.ClientID(id))
	}
	tlsConf, tlsOn, err := conf.FieldTLSToggled(fTLS)
	if err = errors.Join(r.err, err); err != nil {
		return nil, err
	}
	if tlsOn {
		opts = append(opts, kgo.DialTLSConfig(tlsConf))
	}
	if !conf.Contains(fSASL) {
		return opts, nil
	}
	mechs, err := saslMechanisms(conf)
	if len(mechs) > 0 {
		opts = append(opts, kgo.SASL(mechs...))
	}
	return opts, err
}

// fields reads string fields until the first error, which it keeps: a
// config read as a list of values, with one error check at the end.
type fields struct {
	conf *service.ParsedConfig
	err  error
}

func (f *fields) str(name string) string {
	if f.err != nil {
		return ""
	}
	v, err := f.conf.FieldString(name)
	f.err = err
	return v
}

func saslMechanisms(conf *service.ParsedConfig) ([]sasl.Mechanism, error) {
	list, err := conf.FieldObjectList(fSASL)
	if err != nil {
		return nil, err
	}
	var out []sasl.Mechanism
	for i, c := range list {
		r := fields{conf: c}
		mech, user, pass, token := r.str(fSASLMechanism), r.str(fSASLUsername), r.str(fSASLPassword), r.str(fSASLToken)
		var ext map[string]string
		if r.err == nil && c.Contains(fSASLExt) {
			ext, r.err = c.FieldStringMap(fSASLExt)
		}
		if r.err != nil {
			return nil, r.err
		}
		m, err := Mechanism(mech, user, pass, token, ext)
		if err != nil {
			return nil, fmt.Errorf("%s[%d].%s: %w", fSASL, i, fSASLMechanism, err)
		}
		if m != nil {
			out = append(out, m)
		}
	}
	return out, nil
}
