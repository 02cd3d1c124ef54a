package geminicli

import (
	"bufio"
	"os"
	"testing"
)

// TestChatResponses: a chat written by the real Gemini CLI 0.61.0 (a turn
// with a shell call, its answer, a second prompt, then the session resumed,
// which writes the history again) gives its three responses, some of them
// more than once, always by the same id and with the same tokens.
func TestChatResponses(t *testing.T) {
	f, err := os.Open("testdata/chat-0.61.0.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	byID := map[string]Response{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		for _, r := range ChatLine(sc.Bytes()) {
			if prev, ok := byID[r.ID]; ok && (prev.Input != r.Input || prev.Output != r.Output) {
				t.Errorf("response %s written with other tokens: %+v and %+v", r.ID, prev, r)
			}
			byID[r.ID] = r
			n++
		}
	}
	want := map[string][2]int64{
		"1ed1c96b-b0e4-4a7b-b7bb-23ee35f73428": {12139, 1},
		"e6c07d7f-b740-42a2-b83c-9d2ffeeef43b": {12243, 2},
		"62203c50-dfff-4929-a666-576cbc66bd1c": {12255, 1},
	}
	if len(byID) != len(want) || n <= len(want) {
		t.Fatalf("responses: %d found %d times, want %d found more often: %+v", len(byID), n, len(want), byID)
	}
	for id, w := range want {
		r := byID[id]
		if r.Input != w[0] || r.Output != w[1] || r.Model != "gemini-3.1-pro-preview" || r.Time.IsZero() {
			t.Errorf("response %s: %+v, want input %d output %d of gemini-3.1-pro-preview", id, r, w[0], w[1])
		}
	}
}
