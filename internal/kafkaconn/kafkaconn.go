// Package kafkaconn is how the binary's Kafka clients connect: the
// `kafka_franz` output and the `paimon` input's consumer group share these
// fields (Redpanda Connect's names) and turn them into franz-go options the
// same way.
package kafkaconn

import (
	"fmt"
	"strings"

	"github.com/redpanda-data/benthos/v4/public/service"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Field names (Connect's).
const (
	FieldSeedBrokers = "seed_brokers"
	FieldClientID    = "client_id"
	FieldTLS         = "tls"
	FieldSASL        = "sasl"

	fSASLMechanism = "mechanism"
	fSASLUsername  = "username"
	fSASLPassword  = "password"
	fSASLToken     = "token"
	fSASLExt       = "extensions"
)

// SeedBrokersField is the seed_brokers field.
func SeedBrokersField() *service.ConfigField {
	return service.NewStringListField(FieldSeedBrokers).
		Description("Broker addresses to bootstrap from. An item may hold several addresses separated by commas.").
		Example([]string{"localhost:9092"}).
		Example([]string{"foo:9092", "bar:9092"}).
		Example([]string{"foo:9092,bar:9092"})
}

// ClientIDField is the client_id field with its default.
func ClientIDField(def string) *service.ConfigField {
	return service.NewStringField(FieldClientID).
		Description("The client id announced to the brokers.").
		Default(def).
		Advanced()
}

// TLSField is the tls field.
func TLSField() *service.ConfigField { return service.NewTLSToggledField(FieldTLS) }

// SASLField is the sasl field.
func SASLField() *service.ConfigField {
	return service.NewObjectListField(FieldSASL,
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
	brokers, err := conf.FieldStringList(FieldSeedBrokers)
	if err != nil {
		return nil, err
	}
	var seeds []string
	for _, b := range brokers {
		for _, s := range strings.Split(b, ",") {
			if s = strings.TrimSpace(s); s != "" {
				seeds = append(seeds, s)
			}
		}
	}
	if len(seeds) == 0 {
		return nil, fmt.Errorf("%s: at least one seed broker is required", FieldSeedBrokers)
	}
	return seeds, nil
}

// Opts returns the connection options of conf: seed brokers, client id,
// TLS and SASL.
func Opts(conf *service.ParsedConfig) ([]kgo.Opt, error) {
	seeds, err := Seeds(conf)
	if err != nil {
		return nil, err
	}
	opts := []kgo.Opt{kgo.SeedBrokers(seeds...)}
	clientID, err := conf.FieldString(FieldClientID)
	if err != nil {
		return nil, err
	}
	if clientID != "" {
		opts = append(opts, kgo.ClientID(clientID))
	}
	tlsConf, tlsOn, err := conf.FieldTLSToggled(FieldTLS)
	if err != nil {
		return nil, err
	}
	if tlsOn {
		opts = append(opts, kgo.DialTLSConfig(tlsConf))
	}
	mechs, err := saslMechanisms(conf)
	if err != nil {
		return nil, err
	}
	if len(mechs) > 0 {
		opts = append(opts, kgo.SASL(mechs...))
	}
	return opts, nil
}

func saslMechanisms(conf *service.ParsedConfig) ([]sasl.Mechanism, error) {
	if !conf.Contains(FieldSASL) {
		return nil, nil
	}
	list, err := conf.FieldObjectList(FieldSASL)
	if err != nil {
		return nil, err
	}
	var out []sasl.Mechanism
	for i, c := range list {
		mech, err := c.FieldString(fSASLMechanism)
		if err != nil {
			return nil, err
		}
		user, err := c.FieldString(fSASLUsername)
		if err != nil {
			return nil, err
		}
		pass, err := c.FieldString(fSASLPassword)
		if err != nil {
			return nil, err
		}
		switch mech {
		case "", "none":
			continue
		case "PLAIN":
			out = append(out, plain.Auth{User: user, Pass: pass}.AsMechanism())
		case "SCRAM-SHA-256":
			out = append(out, scram.Auth{User: user, Pass: pass}.AsSha256Mechanism())
		case "SCRAM-SHA-512":
			out = append(out, scram.Auth{User: user, Pass: pass}.AsSha512Mechanism())
		case "OAUTHBEARER":
			tok, err := c.FieldString(fSASLToken)
			if err != nil {
				return nil, err
			}
			var ext map[string]string
			if c.Contains(fSASLExt) {
				if ext, err = c.FieldStringMap(fSASLExt); err != nil {
					return nil, err
				}
			}
			out = append(out, oauth.Auth{Token: tok, Extensions: ext}.AsMechanism())
		default:
			return nil, fmt.Errorf("%s[%d].%s: unsupported mechanism %q (none, PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER)", FieldSASL, i, fSASLMechanism, mech)
		}
	}
	return out, nil
}
