package results

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// benchAxeCSV is the real scan's axe rows repeated to n rows.
func benchAxeCSV(b *testing.B, n int) []byte {
	b.Helper()
	src, err := os.ReadFile(realScan + "/axe_core_audit.csv")
	if err != nil {
		b.Fatal(err)
	}
	header, body, _ := strings.Cut(string(src), "\n")
	rows := strings.SplitAfter(strings.TrimSuffix(body, "\n"), "\n")
	var buf bytes.Buffer
	buf.WriteString(header + "\n")
	for i := range n {
		buf.WriteString(strings.TrimSuffix(rows[i%len(rows)], "\n") + "\n")
	}
	return buf.Bytes()
}

// BenchmarkSummarize compares the summary of 100,000 axe rows with a bare
// encoding/csv loop over the same bytes (the floor of any encoding/csv reader).
func BenchmarkSummarize(b *testing.B) {
	data := benchAxeCSV(b, 100_000)
	b.Run("encoding/csv", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			r := csv.NewReader(bufio.NewReaderSize(bytes.NewReader(data), readBufferBytes))
			r.ReuseRecord, r.FieldsPerRecord = true, -1
			for {
				if _, err := r.Read(); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("Summarize", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		fsys := fstest.MapFS{"axe_core_audit.csv": {Data: data}}
		for b.Loop() {
			if _, err := SummarizeContext(context.Background(), fsys, Options{Duration: 1}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
