package objectstore

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"slices"

	"github.com/minio/minio-go/v7"

	"github.com/a11y-dev/cwac-operator/internal/backoff"
	"github.com/a11y-dev/cwac-operator/internal/resultspath"
)

// maxErrorBody bounds the read of a refusal's body (an S3 error document).
const maxErrorBody = 64 << 10

// UploadGranted is Upload for a pod that holds a grant, not credentials:
// every regular file under dir (but the directories named in skip) is
// POSTed to its key under the grant's prefix, retried as Upload retries,
// and counted stored when the service answers that it created it.
func UploadGranted(ctx context.Context, g *Grant, dir string, retry backoff.Doubling, skip ...string) (Uploaded, error) {
	if err := g.Check(); err != nil {
		return Uploaded{}, err
	}
	client, err := g.client()
	if err != nil {
		return Uploaded{}, fmt.Errorf("results grant: %v", err)
	}
	return uploadTree(ctx, dir, retry, skip, func(f *os.File, name string, size int64) error {
		return postFile(ctx, client, g, f, size, g.KeyPrefix+name)
	})
}

// UploadGrantedFile stores the one file name under dir, once, as
// UploadGranted stores each: for a file that changes while the pod runs
// (CWAC's progress), sent again later, where one lost try costs nothing.
func UploadGrantedFile(ctx context.Context, g *Grant, dir, name string) error {
	if err := g.Check(); err != nil {
		return err
	}
	if err := resultspath.Check(name); err != nil {
		return fmt.Errorf("results to upload: %v", err)
	}
	client, err := g.client()
	if err != nil {
		return fmt.Errorf("results grant: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("results to upload: %v", err)
	}
	defer func() { _ = root.Close() }()
	// Only a regular file: opening a FIFO would wait for a writer.
	if info, err := root.Lstat(name); err != nil || !info.Mode().IsRegular() {
		return fmt.Errorf("results to upload: %s is not a regular file (%v)", name, err)
	}
	_, err = sendFile(root, name, func(f *os.File, name string, size int64) error {
		return postFile(ctx, client, g, f, size, g.KeyPrefix+name)
	})
	return err
}

// postFile sends one file (f, of size bytes) as S3's POST form: the
// grant's fields, the key, then the file, streamed, with its length known
// beforehand.
func postFile(ctx context.Context, client *http.Client, g *Grant, f io.Reader, size int64, key string) error {
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	fields := make([]string, 0, len(g.Upload.Fields))
	for k := range g.Upload.Fields {
		fields = append(fields, k)
	}
	slices.Sort(fields)
	for _, k := range fields {
		if k == "key" {
			continue
		}
		_ = mw.WriteField(k, g.Upload.Fields[k])
	}
	_ = mw.WriteField("key", key)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, "upload"))
	h.Set("Content-Type", "application/octet-stream")
	if _, err := mw.CreatePart(h); err != nil {
		return err
	}
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	body := io.MultiReader(bytes.NewReader(head.Bytes()), io.LimitReader(f, size), bytes.NewReader([]byte(tail)))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.Upload.URL, body)
	if err != nil {
		return err
	}
	req.ContentLength = int64(head.Len()) + size + int64(len(tail))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := client.Do(req)
	if err != nil {
		return fail(opUpload, key, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
		return fail(opUpload, key, refusal(resp))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	return nil
}

// refusal reads an S3 error document from a refused request.
func refusal(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := minio.ErrorResponse{StatusCode: resp.StatusCode}
	if xml.Unmarshal(body, &e) != nil || e.Code == "" {
		e.Message = resp.Status
	}
	return e
}

// FetchGranted downloads the grant's baseline files into dir (made when
// missing), each checked against its size.
func FetchGranted(ctx context.Context, g *Grant, dir string) (Uploaded, error) {
	var got Uploaded
	if err := g.Check(); err != nil {
		return got, err
	}
	client, err := g.client()
	if err != nil {
		return got, fmt.Errorf("results grant: %v", err)
	}
	root, err := openDownloadDir(dir)
	if err != nil {
		return got, err
	}
	defer func() { _ = root.Close() }()
	for _, file := range g.Baseline {
		n, err := fetchFile(ctx, client, root, file)
		if err != nil {
			return got, err
		}
		got.Files++
		got.Bytes += n
	}
	return got, nil
}

func fetchFile(ctx context.Context, client *http.Client, root *os.Root, file GrantFile) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, file.URL, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fail(opRead, file.Name, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return 0, fail(opRead, file.Name, refusal(resp))
	}
	return writeChecked(root, file.Name, resp.Body, file.Size, file.Name)
}
