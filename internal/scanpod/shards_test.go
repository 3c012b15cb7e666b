package scanpod

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A sharded scan's flags survive the Job builder and the runner: the
// shard count only when there is more than one, the merge switch, and the
// failed shards.
func TestShardFlagsRoundTrip(t *testing.T) {
	for _, want := range []RunnerFlags{
		{ConfigMapDir: "/c", ResultsDir: "/r", WorkDir: "/w", TerminationLog: "/t", Shards: 2},
		{ConfigMapDir: "/c", ResultsDir: "/r", WorkDir: "/w", TerminationLog: "/t", Shards: 64, Merge: true, FailedShards: ShardList{0, 3, 63}},
		{ConfigMapDir: "/c", ResultsDir: "/r", WorkDir: "/w", TerminationLog: "/t", Shards: 3, Merge: true, FailedShards: ShardList{1}},
	} {
		fs := flag.NewFlagSet("runner", flag.ContinueOnError)
		var got RunnerFlags
		got.Bind(fs)
		if err := fs.Parse(want.Args()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round trip of %v (-want +got):\n%s", want.Args(), diff)
		}
	}
}

// An unsharded scan's command line has no shard flags at all (its Job is
// the same as before shards existed).
func TestShardFlagsOnlyWhenSharded(t *testing.T) {
	for _, tc := range []struct {
		flags RunnerFlags
		want  []string
	}{
		{RunnerFlags{}, nil},
		{RunnerFlags{Shards: 1}, nil},
		{RunnerFlags{Shards: 2}, []string{"--shards=2"}},
		{RunnerFlags{Merge: true}, []string{"--merge"}},
		{RunnerFlags{FailedShards: ShardList{}}, nil},
		{RunnerFlags{FailedShards: ShardList{5}}, []string{"--failed-shards=5"}},
	} {
		var got []string
		for _, a := range tc.flags.Args() {
			if strings.HasPrefix(a, "--shards") || a == "--merge" || strings.HasPrefix(a, "--failed-shards") {
				got = append(got, a)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%+v: shard flags %v, want %v", tc.flags, got, tc.want)
		}
	}
}

func TestShardListSet(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want ShardList
		err  string
	}{
		{in: "", want: nil},
		{in: "0", want: ShardList{0}},
		{in: "3,1,3,,2", want: ShardList{1, 2, 3}},
		{in: "63", want: ShardList{63}},
		{in: "64", err: `shard index "64": want a whole number from 0 to 63`},
		{in: "-1", err: `shard index "-1"`},
		{in: "1,x", err: `shard index "x"`},
		{in: "1-3", err: `shard index "1-3"`},
	} {
		var got ShardList
		err := got.Set(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Set(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Set(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestShardListString(t *testing.T) {
	for list, want := range map[string]ShardList{"": nil, "7": {7}, "0,2,10": {0, 2, 10}} {
		if got := want.String(); got != list {
			t.Errorf("%v.String() = %q, want %q", []int(want), got, list)
		}
	}
}

func TestShardDir(t *testing.T) {
	if got := ShardDir(0); got != "shards/0" {
		t.Errorf("ShardDir(0) = %q", got)
	}
	if got := ShardDir(12); got != "shards/12" {
		t.Errorf("ShardDir(12) = %q", got)
	}
}
