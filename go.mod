module github.com/connect-paimon/connect-paimon

go 1.26.8

require (
	github.com/apache/arrow-go/v18 v18.8.0 // indirect
	github.com/redpanda-data/benthos/v4 v4.76.0 // indirect
	github.com/twmb/avro v1.9.1 // indirect
	gocloud.dev v0.47.0 // indirect
)
