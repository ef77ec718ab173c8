package main

import (
	"io"
	"sync"

	"github.com/urfave/cli/v2"
)

// tagline is the binary's one-line description in --help.
const tagline = "Stream Apache Paimon tables into Kafka, S3 and every Benthos output"

// helpDescription replaces Benthos' examples (`create kafka//file` names
// components this binary does not have) with ones that run here.
func helpDescription(binary string) string {
	return `Read an Apache Paimon table (a full read, then its changes as snapshots are committed) and
send the rows anywhere Benthos can, with the consumer position kept in the table:

  ` + binary + ` create paimon//kafka_franz > ./config.yaml
  ` + binary + ` lint ./config.yaml
  ` + binary + ` run ./config.yaml
  ` + binary + ` paimon snapshots --warehouse s3://bucket/warehouse --table db.orders
  ` + binary + ` paimon tail --warehouse ./warehouse --table db.orders
  ` + binary + ` list inputs outputs`
}

var productHelpOnce sync.Once

// installProductHelp makes the root help the product's: Benthos builds the
// urfave/cli App itself and sets a generic Usage and Description with no
// option to change them, so the help printer (urfave's package-level hook)
// sets them on the root App before printing. Subcommand help is unchanged.
func installProductHelp(binary, docsURL string) {
	productHelpOnce.Do(func() {
		printer := cli.HelpPrinter
		cli.HelpPrinter = func(w io.Writer, templ string, data any) {
			if app, ok := data.(*cli.App); ok && app.Name == binary {
				app.Usage = tagline + " - " + docsURL
				app.Description = helpDescription(binary)
			}
			printer(w, templ, data)
		}
	})
}
