package binarycase

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
)

// allocEnv makes this test binary, run as a child, hold that many MiB
// (each page written, so resident) and exit.
const allocEnv = "BINARYCASE_TEST_ALLOC_MIB"

func TestMain(m *testing.M) {
	if v := os.Getenv(allocEnv); v != "" {
		mib, err := strconv.Atoi(v)
		if err != nil {
			os.Exit(3)
		}
		held := make([]byte, mib<<20)
		for i := 0; i < len(held); i += 4096 { // a byte a page: each page resident
			held[i] = 1
		}
		runtime.KeepAlive(held)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The peak is the child's: a child that holds 256 MiB peaks at half that
// at least, far above this test process (its memory is what a wrong
// reading, the parent's, would give; none gives 0).
func TestRunGivesTheChildsPeak(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), allocEnv+"=256")
	peak, err := Run(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if peak < 128<<10 {
		t.Errorf("peak %d KiB, want at least 128 MiB of the child's 256", peak)
	}
}

func TestRunFailsWithTheChild(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), allocEnv+"=not-a-number")
	if _, err := Run(cmd); err == nil {
		t.Error("a child that exits 3 gave no error")
	}
}
