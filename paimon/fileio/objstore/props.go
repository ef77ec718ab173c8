package objstore

import (
	"fmt"
	"strconv"
	"strings"
)

// s3PropertyPrefixes are the spellings Java Paimon's S3 FileIO accepts for
// Hadoop's fs.s3a.* keys (S3FileIO.CONFIG_PREFIXES): "s3.endpoint" and
// "s3a.endpoint" both mean fs.s3a.endpoint.
var s3PropertyPrefixes = []string{"fs.s3a.", "s3a.", "s3."}

// s3Mirrored are Paimon's dashed aliases of Hadoop's dotted keys
// (S3FileIO.MIRRORED_CONFIG_KEYS), after the prefix is normalised.
var s3Mirrored = map[string]string{
	"fs.s3a.access-key":        "fs.s3a.access.key",
	"fs.s3a.secret-key":        "fs.s3a.secret.key",
	"fs.s3a.path-style-access": "fs.s3a.path.style.access",
}

// WithProperties returns o with the S3 settings of Paimon catalog or
// file-IO properties applied: the keys Java's S3 FileIO reads (s3.*,
// s3a.* or fs.s3a.* spellings of access.key, secret.key, session.token,
// endpoint, endpoint.region, path.style.access). It is how credentials a
// REST catalog vends ("data tokens") reach the object-store client. A
// property overrides the field it names; properties for other file systems
// (fs.oss.*, Hadoop tuning keys) are left alone, as Java's S3 FileIO does.
func (o Options) WithProperties(props map[string]string) (Options, error) {
	s3 := map[string]string{}
	for k, v := range props {
		for _, p := range s3PropertyPrefixes {
			if strings.HasPrefix(k, p) {
				norm := "fs.s3a." + strings.TrimPrefix(k, p)
				if m, ok := s3Mirrored[norm]; ok {
					norm = m
				}
				// fs.s3a.* is the canonical spelling and wins a clash.
				if _, seen := s3[norm]; !seen || p == "fs.s3a." {
					s3[norm] = v
				}
				break
			}
		}
	}
	for k, v := range s3 {
		switch k {
		case "fs.s3a.access.key":
			o.AccessKeyID = v
		case "fs.s3a.secret.key":
			o.SecretAccessKey = v
		case "fs.s3a.session.token":
			o.SessionToken = v
		case "fs.s3a.endpoint":
			o.Endpoint = v
		case "fs.s3a.endpoint.region", "fs.s3a.region":
			o.Region = v
		case "fs.s3a.path.style.access":
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return o, fmt.Errorf("property %s=%q: not a boolean", k, v)
			}
			o.ForcePathStyle = b
		}
	}
	return o, nil
}
