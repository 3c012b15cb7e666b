package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/a11y-dev/cwac-operator/internal/cireport"
)

// ciReports are the CI formats among a scan's resources (docs/ci.md): read
// from the volume where the runner wrote them, else built from the results
// as they are read (a scan finished before the runner wrote them), under
// the same cap as any resource.
var ciReports = map[string]func(context.Context, io.Writer, fs.FS, cireport.Options) error{
	cireport.SARIFFile: cireport.WriteSARIF,
	cireport.JUnitFile: cireport.WriteJUnit,
}

// MIME types of the CI formats.
const (
	mimeSARIF = "application/sarif+json"
	mimeXML   = "application/xml"
)

// readScanFile reads one file of a scan's results, building a CI report the
// volume lacks, at most limit bytes.
func readScanFile(ctx context.Context, fsys fs.FS, file, scan string, limit int64) ([]byte, error) {
	data, err := readFile(fsys, file, limit)
	write, isReport := ciReports[file]
	if err == nil || !isReport || !errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	buf := &cappedBuffer{name: file, limit: limit}
	if err := write(ctx, buf, fsys, cireport.Options{Scan: scan}); err != nil {
		return nil, err
	}
	return buf.data, nil
}

// cappedBuffer keeps what is written up to limit bytes and fails the write
// that would pass it, so a report is never built larger than may be sent.
type cappedBuffer struct {
	name  string
	limit int64
	data  []byte
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if int64(len(b.data))+int64(len(p)) > b.limit {
		return 0, fmt.Errorf("%s is more than the %d bytes this server reads", b.name, b.limit)
	}
	b.data = append(b.data, p...)
	return len(p), nil
}
