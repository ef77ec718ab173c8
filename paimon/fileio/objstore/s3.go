package objstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"gocloud.dev/blob/s3blob"
)

// openS3 builds the S3 client from Options rather than s3blob's URL
// parameters so credentials never travel inside a URI (and so never into
// logs), and so the SDK's own retries can be turned off in favour of ours.
func openS3(ctx context.Context, loc location, opts Options) (*Blob, error) {
	client, err := NewS3Client(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", loc.Root, err)
	}
	bucket, err := s3blob.OpenBucket(ctx, client, loc.Bucket, &s3blob.Options{
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
	})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", loc.Root, err)
	}
	return newBlob(bucket, loc.Root, opts)
}

// NewS3Client is the one place where Options' region, endpoint, path
// style and credentials (static, profile, EC2 role, assumed role,
// anonymous) become an S3 client: the reader's FileIO and the binary's
// aws_s3 output both use it. The SDK's retries are off (the reader retries
// itself); optFns run last, so a caller may set its own retryer.
func NewS3Client(ctx context.Context, opts Options, optFns ...func(*s3.Options)) (*s3.Client, error) {
	if (opts.AccessKeyID == "") != (opts.SecretAccessKey == "") {
		return nil, fmt.Errorf("access key id and secret access key must be set together")
	}
	lo := []func(*config.LoadOptions) error{
		// Third-party stores reject the CRC checksums newer SDKs add to every
		// PUT; AWS accepts either.
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
		config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
	}
	if opts.Region != "" {
		lo = append(lo, config.WithRegion(opts.Region))
	}
	if opts.Profile != "" {
		lo = append(lo, config.WithSharedConfigProfile(opts.Profile))
	}
	if opts.FromEC2Role && (opts.Anonymous || opts.AccessKeyID != "") {
		return nil, fmt.Errorf("EC2 role credentials exclude static keys and anonymous access")
	}
	switch {
	case opts.Anonymous:
		lo = append(lo, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
	case opts.AccessKeyID != "":
		lo = append(lo, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(opts.AccessKeyID, opts.SecretAccessKey, opts.SessionToken)))
	case opts.FromEC2Role:
		lo = append(lo, config.WithCredentialsProvider(aws.NewCredentialsCache(ec2rolecreds.New())))
	}
	cfg, err := config.LoadDefaultConfig(ctx, lo...)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	if cfg.Region == "" {
		// S3-compatible servers accept any region in the signature; AWS
		// answers a wrong one with a redirect error naming the right one.
		cfg.Region = "us-east-1"
	}
	if opts.RoleARN != "" {
		prov := stscreds.NewAssumeRoleProvider(sts.NewFromConfig(cfg), opts.RoleARN, func(o *stscreds.AssumeRoleOptions) {
			if opts.RoleExternalID != "" {
				o.ExternalID = aws.String(opts.RoleExternalID)
			}
		})
		cfg.Credentials = aws.NewCredentialsCache(prov)
	}
	endpoint := opts.Endpoint
	if endpoint != "" && !strings.Contains(endpoint, "://") {
		endpoint = "https://" + endpoint
	}
	return s3.NewFromConfig(cfg, append([]func(*s3.Options){func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		o.UsePathStyle = opts.ForcePathStyle
	}}, optFns...)...), nil
}
