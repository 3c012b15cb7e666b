package cli

import (
	"bytes"
	"testing"

	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
)

func TestWritePageLine(t *testing.T) {
	tests := []struct {
		page mcpapi.SignalsPage
		want string
	}{
		{mcpapi.SignalsPage{Total: 3, Returned: 3}, "3 of 3 items.\n"},
		{mcpapi.SignalsPage{Total: 250, Offset: 100, Returned: 100}, "100 of 250 items. Read on with --offset 200.\n"},
		{mcpapi.SignalsPage{Total: 250, Offset: 200, Returned: 50, Note: "Cut."}, "50 of 250 items. Cut.\n"},
		{mcpapi.SignalsPage{}, "0 of 0 items.\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		writePageLine(&buf, tt.page)
		if buf.String() != tt.want {
			t.Errorf("writePageLine(%+v) = %q, want %q", tt.page, buf.String(), tt.want)
		}
	}
}
