package cwac

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFailureCause(t *testing.T) {
	tests := []struct {
		name, stderr, want string
	}{
		{name: "empty", stderr: "", want: ""},
		{name: "only decoration", stderr: "****\n----\n\n", want: ""},
		{name: "plain line", stderr: "first\nsomething broke\n", want: "something broke"},
		{
			name:   "exception with message",
			stderr: "Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad value\n",
			want:   "ValueError: bad value",
		},
		{
			name:   "dotted exception",
			stderr: "selenium.common.exceptions.SessionNotCreatedException: Message: session not created\n#0 0x55 <unknown>\n",
			want:   "selenium.common.exceptions.SessionNotCreatedException: Message: session not created",
		},
		{
			name:   "empty message takes the next text line",
			stderr: "LookupError: \n****\n  Resource \x1b[93mcmudict\x1b[0m not found.\n",
			want:   "LookupError: Resource cmudict not found.",
		},
		{name: "empty message and nothing after", stderr: "KeyboardInterrupt\n", want: "KeyboardInterrupt"},
		{name: "last traceback wins", stderr: "OSError: first\nduring handling\nRuntimeError: second\n", want: "RuntimeError: second"},
		{name: "a word ending in Error mid-sentence is not an exception line", stderr: "the Error: was here ok\nlast words\n", want: "last words"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FailureCause(tt.stderr); got != tt.want {
				t.Errorf("FailureCause() = %q, want %q", got, tt.want)
			}
		})
	}
}

// Real CWAC failures (testdata/cwac-results/failures): the cause is the
// exception that says what is wrong, not the first line of stderr.
func TestFailureCauseOfRealCWAC(t *testing.T) {
	tests := map[string]string{
		"a-malformed-config.stderr":            "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 77 column 1 (char 2106)",
		"c-missing-base-urls-dir.stderr":       "FileNotFoundError: [Errno 2] No such file or directory: './base_urls/visit/does-not-exist/'",
		"d-config-name-with-slash.stderr":      "ValueError: config_filename must be alphanumeric, underscores, and hyphens",
		"e-language-audit-no-nltk-data.stderr": "LookupError: Resource cmudict not found.",
		"f-root-without-no-sandbox.stderr": "selenium.common.exceptions.SessionNotCreatedException: Message: session not created: " +
			"Chrome instance exited. Examine ChromeDriver verbose log to determine the cause.",
	}
	for file, want := range tests {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "cwac-results", "failures", file))
			if err != nil {
				t.Fatal(err)
			}
			if got := FailureCause(string(data)); got != want {
				t.Errorf("FailureCause() = %q, want %q", got, want)
			}
		})
	}
}
