package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/a11y-dev/cwac-operator/hack/bench/benchbucket"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
)

// The keys the cases store under, ours and the bare client's apart; the
// downloads read back what the uploads stored.
const (
	oursKey = "bench/ours"
	bareKey = "bench/bare"
)

// bucketCases store and fetch a results directory through the results
// bucket's store, and through a bare minio-go client copying the same
// files with its defaults (the baseline).
var bucketCases = map[string]func(dir string) (string, error){
	"bucket-upload": func(dir string) (string, error) {
		st, err := bucketStore()
		if err != nil {
			return "", err
		}
		up, err := st.Upload(context.Background(), dir, oursKey, objectstore.UploadRetry)
		return fmt.Sprintf("%d files, %d bytes", up.Files, up.Bytes), err
	},
	"bucket-download": func(dir string) (string, error) {
		st, err := bucketStore()
		if err != nil {
			return "", err
		}
		dst, err := freshDir(dir, "ours")
		if err != nil {
			return "", err
		}
		got, err := st.Download(context.Background(), oursKey, dst)
		return fmt.Sprintf("%d files, %d bytes", got.Files, got.Bytes), err
	},
	"bare-upload": func(dir string) (string, error) {
		c, bucket, err := bareClient()
		if err != nil {
			return "", err
		}
		files, bytes := 0, int64(0)
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			info, err := c.FPutObject(context.Background(), bucket, bareKey+"/"+filepath.ToSlash(rel), p, minio.PutObjectOptions{})
			files, bytes = files+1, bytes+info.Size
			return err
		})
		return fmt.Sprintf("%d files, %d bytes", files, bytes), err
	},
	"bare-download": func(dir string) (string, error) {
		c, bucket, err := bareClient()
		if err != nil {
			return "", err
		}
		dst, err := freshDir(dir, "bare")
		if err != nil {
			return "", err
		}
		files, bytes := 0, int64(0)
		ctx := context.Background()
		for oi := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Prefix: bareKey + "/", Recursive: true}) {
			if oi.Err != nil {
				return "", oi.Err
			}
			// The keys are the bare upload's own: trusted here, unlike the
			// product's downloads, which check every name.
			if err := c.FGetObject(ctx, bucket, oi.Key, filepath.Join(dst, strings.TrimPrefix(oi.Key, bareKey+"/")), minio.GetObjectOptions{}); err != nil {
				return "", err
			}
			files, bytes = files+1, bytes+oi.Size
		}
		return fmt.Sprintf("%d files, %d bytes", files, bytes), nil
	},
}

func init() {
	for name, fn := range bucketCases {
		readCases[name] = fn
	}
}

func bucketStore() (*objectstore.Store, error) {
	cfg, err := benchbucket.Given()
	if err != nil {
		return nil, err
	}
	return objectstore.Open(cfg)
}

// bareClient is a plain minio-go client of the same bucket, signed in with
// the same key.
func bareClient() (*minio.Client, string, error) {
	cfg, err := benchbucket.Given()
	if err != nil {
		return nil, "", err
	}
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(cfg.CredentialsDir, name))
		return strings.TrimSpace(string(b)), err
	}
	key, err := read(objectstore.AccessKeyFile)
	if err != nil {
		return nil, "", err
	}
	secret, err := read(objectstore.SecretKeyFile)
	if err != nil {
		return nil, "", err
	}
	host, secure := strings.CutPrefix(cfg.Endpoint, "https://")
	host = strings.TrimPrefix(host, "http://")
	c, err := minio.New(host, &minio.Options{Creds: credentials.NewStaticV4(key, secret, ""), Secure: secure,
		Region: cfg.Region, BucketLookup: minio.BucketLookupPath})
	return c, cfg.Bucket, err
}

// freshDir is an empty directory beside the results directory for a
// download to write into.
func freshDir(dir, name string) (string, error) {
	dst := filepath.Join(filepath.Dir(dir), "download-"+name)
	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	return dst, os.MkdirAll(dst, 0o750)
}
