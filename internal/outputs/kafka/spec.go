// Package kafka is the binary's `kafka_franz` output: Kafka producer on
// franz-go (kgo) with Redpanda Connect's field names, so a Connect user's YAML
// runs unchanged. A batch is acknowledged to the input only after Kafka
// acknowledged every record of it, which is what keeps the paimon input's
// consumer file from running ahead of what the topic holds.
package kafka

import (
	"github.com/redpanda-data/benthos/v4/public/service"

	"github.com/connect-paimon/connect-paimon/internal/exactlyonce"
	"github.com/connect-paimon/connect-paimon/internal/kafkaconn"
	"github.com/connect-paimon/connect-paimon/internal/outputs/batchout"
)

// Name is the output's registered name (Connect's).
const Name = "kafka_franz"

// Field names: Connect's, plus acks and tombstones (documented as ours).
const (
	fTopic           = "topic"
	fKey             = "key"
	fPartitioner     = "partitioner"
	fPartition       = "partition"
	fRackID          = "rack_id"
	fIdempotentWrite = "idempotent_write"
	fAcks            = "acks"
	fMetadata        = "metadata"
	fTimestampMs     = "timestamp_ms"
	fTombstones      = "tombstones"
	fMaxInFlight     = "max_in_flight"
	fBatching        = "batching"
	fTimeout         = "timeout"
	fMaxMessageBytes = "max_message_bytes"
	fBrokerMaxBytes  = "broker_write_max_bytes"
	fCompression     = "compression"
	fMetadataMaxAge  = "metadata_max_age"
	fAutoTopics      = "allow_auto_topic_creation"
	fExactlyOnce     = "exactly_once"
)

// The fields of exactly_once.
const (
	fEOEnabled       = "enabled"
	fEOProgressTopic = "progress_topic"
	fEOIDPrefix      = "transactional_id_prefix"
	fEOTimeout       = "transaction_timeout"
)

// Spec is the output's configuration spec.
func Spec() *service.ConfigSpec {
	return service.NewConfigSpec().
		Stable().
		Categories("Services").
		Summary("Writes a batch of messages to Kafka brokers and waits for the broker to acknowledge every record before acknowledging the batch.").
		Description(`
Built on https://github.com/twmb/franz-go[franz-go], with the field names of Redpanda Connect's
`+"`kafka_franz`"+` output. Each message becomes one record: the body is the value, `+"`key`"+`,
`+"`partition`"+` and `+"`timestamp_ms`"+` are interpolated per message, and the metadata keys selected by
`+"`metadata`"+` become record headers.

A batch is acknowledged only after Kafka acknowledged all its records (with `+"`acks: all`"+`, after
every in-sync replica has them). Records Kafka refused or that timed out are reported
individually, so an input that replays rejections (the `+"`paimon`"+` input does) sends only those
again; the `+"`paimon`"+` consumer file therefore never moves past rows the topic does not hold.
With `+"`idempotent_write`"+` (the default) the producer's own retries never duplicate a record;
replays after a failed batch or a restart can (at-least-once), unless `+"`exactly_once`"+` is on: then
the rows of each `+"`paimon`"+` consumer are committed in Kafka transactions together with the read
position they complete, and after a restart the input resumes from the last committed position.

With `+"`tombstones: true`"+` a message with an empty body is written with a null value, a Kafka
tombstone: on a compacted topic it deletes its key. See `+"`config/pk-to-compacted-topic.yaml`"+`.`).
		Fields(
			kafkaconn.SeedBrokersField(),
			service.NewInterpolatedStringField(fTopic).
				Description("The topic to write to, interpolated per message."),
			service.NewInterpolatedStringField(fKey).
				Description("The record key, interpolated per message. Unset or empty: the record has no key.").
				Example("${! @paimon_key }").
				Optional(),
			service.NewStringAnnotatedEnumField(fPartitioner, map[string]string{
				"murmur2_hash": "Kafka's default: murmur2 hash of the key (as Java clients), sticky for keyless records.",
				"round_robin":  "Round-robin over the available partitions.",
				"least_backup": "The partition with the fewest buffered records.",
				"manual":       "The partition given by `partition`.",
			}).
				Description("How a record's partition is chosen. Unset: murmur2 hash of the key, keyless records spread by size (franz-go's default).").
				Optional().
				Advanced(),
			service.NewInterpolatedStringField(fPartition).
				Description("The partition of each record, interpolated; only with `partitioner: manual`, where it is required.").
				Optional().
				Advanced(),
			kafkaconn.ClientIDField("benthos"),
			service.NewStringField(fRackID).
				Description("A rack identifier for this client.").
				Default("").
				Advanced(),
			service.NewBoolField(fIdempotentWrite).
				Description("Idempotent produce: the broker drops duplicates of the producer's own retries. Needs `acks: all` and, on the cluster, IDEMPOTENT_WRITE permission.").
				Default(true).
				Advanced(),
			service.NewStringAnnotatedEnumField(fAcks, map[string]string{
				"all":    "Every in-sync replica has the record (needed by idempotent_write).",
				"leader": "The partition leader has it; lost if the leader fails before replication.",
				"none":   "No acknowledgement is awaited: a batch counts as delivered once sent. Never use it with a consumer_id you rely on.",
			}).
				Description("What Kafka must have done before a record counts as acknowledged. Anything but `all` needs `idempotent_write: false`.").
				Default("all").
				Advanced(),
			service.NewMetadataFilterField(fMetadata).
				Description("Which metadata keys become record headers (as strings).").
				Optional().
				Advanced(),
			service.NewInterpolatedStringField(fTimestampMs).
				Description("The record timestamp in Unix milliseconds, interpolated. Unset: the time of producing.").
				Example("${! (@paimon_commit_time.ts_unix_nano() / 1000000).floor() }").
				Optional().
				Advanced(),
			service.NewBoolField(fTombstones).
				Description("Write a message whose body is empty as a record with a null value (a tombstone, which deletes its key on a compacted topic). Off: an empty body is an empty value.").
				Default(false).
				Advanced(),
			// 64, not Connect's 10: an at-least-once batch is held until
			// Kafka acknowledges it, so the batches in flight must cover
			// the broker's round trip at the input's rate (docs/benchmarks.md).
			service.NewOutputMaxInFlightField().
				Description("The most batches written and not yet acknowledged by Kafka. 64 (Connect's default is 10) keeps a producer busy through the broker's round trip; the input's `checkpoint_limit` bounds the rows in flight as well.").
				Default(64),
			service.NewBatchPolicyField(fBatching),
			service.NewDurationField(fTimeout).
				Description("The longest wait for Kafka to acknowledge one batch; records not acknowledged by then are rejected and replayed. An idempotent producer cannot give up on a request already sent (the broker may have written it): such a batch waits for the broker's answer, past the timeout if need be.").
				Default("10s").
				Advanced(),
			service.NewIntField(fMaxMessageBytes).
				Description("The largest record batch sent to a partition in bytes (franz-go's ProducerBatchMaxBytes); must not exceed the topic's max.message.bytes.").
				Default(1024*1024).
				Advanced(),
			service.NewIntField(fBrokerMaxBytes).
				Description("The largest request written to a broker in bytes.").
				Default(100*1024*1024).
				Advanced(),
			service.NewStringEnumField(fCompression, "lz4", "snappy", "gzip", "none", "zstd").
				Description("Compression of record batches. Unset: franz-go's preference (snappy, falling back to none).").
				Optional().
				Advanced(),
			kafkaconn.TLSField(),
			kafkaconn.SASLField(),
			service.NewDurationField(fMetadataMaxAge).
				Description("How often cluster metadata is refreshed at the latest.").
				Default("5m").
				Advanced(),
			service.NewBoolField(fAutoTopics).
				Description("Let the broker create a missing topic on first write (when the broker allows it).").
				Default(true).
				Advanced(),
			service.NewObjectField(fExactlyOnce,
				service.NewBoolField(fEOEnabled).
					Description("Commit the rows of each `paimon` consumer and the read position they complete in one Kafka transaction.").
					Default(false),
				service.NewStringField(fEOProgressTopic).
					Description("The compacted topic that holds the committed read position of each consumer (created, compacted, when missing). Its record key is `<db.table>/<consumer id>`.").
					Default("connect-paimon-progress"),
				service.NewStringField(fEOIDPrefix).
					Description("Prefix of the transactional ids; the id of a consumer is the prefix followed by `<db.table>/<consumer id>`. Pipelines that read different warehouses into one cluster with the same table and consumer names need different prefixes.").
					Default("connect-paimon/").
					Advanced(),
				service.NewDurationField(fEOTimeout).
					Description("How long the broker lets a transaction stay open before aborting it (Kafka's `transaction.timeout.ms`; at most the broker's `transaction.max.timeout.ms`, 15 minutes by default). The input commits every `commit_period` and at the end of every snapshot, far below it; it only matters when a replica stalls, and a transaction the broker aborts is read again from its start.").
					Default("1m").
					Advanced(),
			).
				Description("Exactly-once delivery from the `paimon` input: rows reach the topic in Kafka transactions, each committed together with the read position it completes, and after a crash or a restart the input resumes from the last committed position, so no row is written twice. Consumers of the topic must read with `isolation.level=read_committed` to see only committed rows. Needs a `consumer_id` on the input, `idempotent_write: true` and `acks: all`; with a `batching` policy, it must have a `period`.").
				Optional(),
		).
		LintRule(`root = match {
  this.partitioner.or("") == "manual" && this.partition.or("") == "" => [ "partition is required with partitioner: manual" ],
  this.partitioner.or("") != "manual" && this.partition.or("") != "" => [ "partition is only used with partitioner: manual" ],
  this.idempotent_write.or(true) && this.acks.or("all") != "all" => [ "acks other than all needs idempotent_write: false" ],
  this.exactly_once.enabled.or(false) && (!this.idempotent_write.or(true) || this.acks.or("all") != "all") => [ "exactly_once needs idempotent_write: true and acks: all" ],
  this.exactly_once.enabled.or(false) && this.batching.count.or(0) + this.batching.byte_size.or(0) > 0 && this.batching.period.or("") == "" => [ "exactly_once with a batching count or byte_size needs a batching period" ],
}`).
		Example("Paimon table to a topic", "Every row of a table and its changes, keyed by the primary key, with the commit's snapshot as a header.", `
input:
  paimon:
    warehouse: /data/warehouse
    table: sales.orders
    consumer_id: orders-to-kafka
output:
  kafka_franz:
    seed_brokers: [ localhost:9092 ]
    topic: orders
    key: ${! @paimon_key }
    metadata:
      include_prefixes: [ paimon_snapshot, operation ]
`)
}

func init() {
	if err := service.RegisterBatchOutput(Name, Spec(), batchout.Constructor(fBatching, func(conf *service.ParsedConfig, mgr *service.Resources) (*output, error) {
		o, err := newOutput(conf, mgr.Logger())
		if err != nil {
			return nil, err
		}
		if o.txn != nil {
			if err := exactlyonce.Register(mgr, o.txn); err != nil {
				return nil, err
			}
		}
		return o, nil
	})); err != nil {
		panic(err)
	}
}
