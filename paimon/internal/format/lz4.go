package format

import (
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/connect-paimon/connect-paimon/paimon/internal/codec"
)

// arrow-go leaves Parquet's deprecated LZ4 codec unimplemented, yet Java
// Paimon with file.compression=lz4 writes it (Hadoop-framed). arrow-go
// looks codecs up only in its package registry, so the decoder is
// registered there: process-wide, but it only adds a codec arrow-go has
// none for, and the registration is the same whoever makes it.
func init() {
	compress.RegisterCodec(compress.Codecs.Lz4, codec.HadoopLZ4{})
}
