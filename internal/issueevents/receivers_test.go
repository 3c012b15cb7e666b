package issueevents

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

func files(m map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if v, ok := m[p]; ok {
			return []byte(v), nil
		}
		return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
	}
}

func TestParseReceivers(t *testing.T) {
	read := files(map[string]string{"/u": "https://tracker.example/hook\n", "/k": "s3cret\n", "/empty": "\n", "/big": strings.Repeat("k", 5000)})
	got, err := ParseReceivers([]byte(`[{"name":"tracker","urlFile":"/u","hmacFile":"/k","organisations":["Ministry of Health"]},
		{"name":"all","urlFile":"/u","hmacFile":"/k"}]`), read)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "tracker" || got[0].URL != "https://tracker.example/hook" || string(got[0].Key) != "s3cret\n" ||
		len(got[0].Organisations) != 1 || got[1].Organisations != nil {
		t.Errorf("parsed %+v", got)
	}
	if got, err := ParseReceivers([]byte(`[]`), read); err != nil || len(got) != 0 {
		t.Errorf("an empty list: %v, %v", got, err)
	}
	many := "[" + strings.TrimSuffix(strings.Repeat(`{"name":"r","urlFile":"/u","hmacFile":"/k"},`, 11), ",") + "]"
	orgs := `["` + strings.TrimSuffix(strings.Repeat(`o","`, 51), `","`) + `"]`
	for name, tc := range map[string]struct{ text, says string }{
		"not JSON":          {`{`, "want a JSON list"},
		"an unknown field":  {`[{"name":"r","url":"https://x","urlFile":"/u","hmacFile":"/k"}]`, `unknown field "url"`},
		"text after":        {`[] []`, "text after the list"},
		"a bad name":        {`[{"name":"Tracker","urlFile":"/u","hmacFile":"/k"}]`, "must be a DNS label"},
		"no key":            {`[{"name":"r","urlFile":"/u"}]`, "hmacFile are required"},
		"twice":             {`[{"name":"r","urlFile":"/u","hmacFile":"/k"},{"name":"r","urlFile":"/u","hmacFile":"/k"}]`, "given twice"},
		"eleven":            {many, "more than 10"},
		"51 organisations":  {`[{"name":"r","urlFile":"/u","hmacFile":"/k","organisations":` + orgs + `}]`, "more than 50"},
		"an empty org":      {`[{"name":"r","urlFile":"/u","hmacFile":"/k","organisations":[""]}]`, "1 to 256 bytes"},
		"a missing file":    {`[{"name":"r","urlFile":"/nope","hmacFile":"/k"}]`, "urlFile: open /nope"},
		"an empty key":      {`[{"name":"r","urlFile":"/u","hmacFile":"/empty"}]`, "hmacFile: /empty: must hold 1 to 4096 bytes, not all blank; has 1"},
		"an oversized file": {`[{"name":"r","urlFile":"/big","hmacFile":"/k"}]`, "has 5000"},
		"too long":          {strings.Repeat(" ", MaxConfigBytes+1), "more than 65536"},
	} {
		_, err := ParseReceivers([]byte(tc.text), read)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.says)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error quotes a key", name)
		}
	}
	denied := func(string) ([]byte, error) { return nil, errors.New("denied") }
	if _, err := ParseReceivers([]byte(`[{"name":"r","urlFile":"/u","hmacFile":"/k"}]`), denied); err == nil {
		t.Error("an unreadable file passed")
	}
}
