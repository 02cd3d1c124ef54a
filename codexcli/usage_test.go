package codexcli

import (
	"bufio"
	"os"
	"testing"
)

// TestRolloutResponses: a rollout written by the real Codex 0.171.0 (its
// member's turns against the fake Responses API: a shell call, its result,
// a second prompt, and a turn after a resume) gives each response once,
// with the usage the fake reported and its turn's model.
func TestRolloutResponses(t *testing.T) {
	f, err := os.Open("testdata/rollout-0.171.0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r RolloutReader
	var got []Response
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if x, ok := r.Line(sc.Bytes()); ok {
			got = append(got, x)
		}
	}
	want := []struct {
		id            string
		input, output int64
	}{{"resp_fake0003", 13476, 1}, {"resp_fake0005", 13589, 2}, {"resp_fake0006", 13663, 1}, {"resp_fake0007", 13737, 1}}
	if len(got) != len(want) {
		t.Fatalf("responses: %+v, want %d", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.id || g.Input != w.input || g.Output != w.output || g.Model != "gpt-fake" || g.Time.IsZero() {
			t.Errorf("response %d: %+v, want %s input %d output %d of gpt-fake", i, g, w.id, w.input, w.output)
		}
	}
}
