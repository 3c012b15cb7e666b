package proc

import (
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/testutil/wait"
)

// TestEnded: a server that stops by itself says so, with how it ended; one
// that runs says nothing.
func TestEnded(t *testing.T) {
	running := Start(t, "sleeper", t.TempDir(), "/bin/sh", "-c", "sleep 60")
	dying := Start(t, "dier", t.TempDir(), "/bin/sh", "-c", "exit 3")
	wait.For(t, "the dying server to end", 30*time.Second, func() (bool, error) {
		err := dying.Ended()
		return err != nil, err
	})
	if err := dying.Ended(); !strings.Contains(err.Error(), "dier stopped by itself: exit status 3") {
		t.Errorf("Ended() = %v, want the name and exit status 3", err)
	}
	if err := running.Ended(); err != nil {
		t.Errorf("a running server: Ended() = %v, want nil", err)
	}
}
