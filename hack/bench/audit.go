package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// auditPolicy logs every request's metadata once, when its response is
// complete: one line per request, watches included (they are left out when
// counting).
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: Metadata
`

// auditEvent is the part of an audit log line the figures use.
type auditEvent struct {
	Verb string `json:"verb"`
	User struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	RequestReceived time.Time `json:"requestReceivedTimestamp"`
	StageTimestamp  time.Time `json:"stageTimestamp"`
}

// resource is "cwacscans" or "cwacscans/status".
func (e auditEvent) resource() string {
	if e.ObjectRef == nil {
		return ""
	}
	if e.ObjectRef.Subresource != "" {
		return e.ObjectRef.Resource + "/" + e.ObjectRef.Subresource
	}
	return e.ObjectRef.Resource
}

func (e auditEvent) code() int {
	if e.ResponseStatus == nil {
		return 0
	}
	return e.ResponseStatus.Code
}

// auditLog reads an API server's audit log from where the last read ended.
type auditLog struct {
	path   string
	offset int64
}

// skip moves past everything logged so far.
func (a *auditLog) skip() error {
	info, err := os.Stat(a.path)
	if err != nil {
		return err
	}
	a.offset = info.Size()
	return nil
}

// read returns the events logged since the last read (or skip) that keep
// says to keep. A line still being written is left for the next read.
func (a *auditLog) read(keep func(auditEvent) bool) ([]auditEvent, error) {
	f, err := os.Open(a.path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Seek(a.offset, io.SeekStart); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	var out []auditEvent
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return out, nil // a partial line stays for the next read
		}
		if err != nil {
			return nil, err
		}
		a.offset += int64(len(line))
		var e auditEvent
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("audit log %s: %w", a.path, err)
		}
		if keep(e) {
			out = append(out, e)
		}
	}
}
