package usage

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamctl/teamctl/claudecode/transcript"
	"github.com/teamctl/teamctl/internal/transcriptgen"
)

func tokensEqual(a Tokens, b transcriptgen.Tokens) bool {
	return a.Input == b.Input && a.Output == b.Output && a.CacheWrite == b.CacheWrite && a.CacheWrite1h == b.CacheWrite1h && a.CacheRead == b.CacheRead
}

// TestMeterEqualsWhatWasWritten: on generated transcripts (responses on
// several lines, subagents, other line types, a cut last line), a Meter's
// totals are what the generator wrote, each response once.
func TestMeterEqualsWhatWasWritten(t *testing.T) {
	cfg := t.TempDir()
	ss, err := transcriptgen.Write(cfg, transcriptgen.Options{Seed: 7, Sessions: 3, Turns: 40, Subagents: 2, TruncateLast: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		m, err := NewMeter(cfg, []string{s.ID}, nil, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		got, notes := m.Update()
		if !tokensEqual(got.Tokens, s.Total) || got.Turns != s.Responses {
			t.Errorf("session %s: %+v (%d turns), want %+v (%d)", s.ID, got.Tokens, got.Turns, s.Total, s.Responses)
		}
		if len(notes) != 0 {
			t.Errorf("notes: %q", notes)
		}
		for model, want := range s.ByModel {
			if !tokensEqual(got.ByModel[model].Tokens, want) || !got.ByModel[model].Priced {
				t.Errorf("%s %s: %+v, want %+v", s.ID, model, got.ByModel[model], want)
			}
		}
		// Nothing new: the same totals, nothing read twice.
		again, _ := m.Update()
		if again.Turns != got.Turns || again.Cost != got.Cost {
			t.Errorf("second update changed the totals: %+v", again)
		}
	}
}

// TestMeterForgetsAReplacedFile: a transcript replaced by a shorter one is
// counted as it is now, not as it was plus what it is.
func TestMeterForgetsAReplacedFile(t *testing.T) {
	cfg := t.TempDir()
	ss, _ := transcriptgen.Write(cfg, transcriptgen.Options{Seed: 1, Sessions: 1, Turns: 10})
	m, _ := NewMeter(cfg, []string{ss[0].ID}, nil, time.Time{})
	m.Update()
	// The same session written again, shorter, in a new file renamed over it.
	other := t.TempDir()
	ss2, _ := transcriptgen.Write(other, transcriptgen.Options{Seed: 2, Sessions: 1, Turns: 3, FixedSessions: []string{ss[0].ID}})
	if err := os.Rename(ss2[0].Main, ss[0].Main); err != nil {
		t.Fatal(err)
	}
	got, _ := m.Update()
	if !tokensEqual(got.Tokens, ss2[0].Total) || got.Turns != 3 {
		t.Errorf("after the replace: %+v, want %+v", got, ss2[0].Total)
	}
}

// TestSinceAndNoPrice: --since leaves earlier responses out; a model the
// table does not know is counted in tokens and has no cost.
func TestSinceAndNoPrice(t *testing.T) {
	cfg := t.TempDir()
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	ss, _ := transcriptgen.Write(cfg, transcriptgen.Options{Seed: 3, Sessions: 1, Turns: 20, Models: []string{"claude-unknown-9"}, Start: start, TimeStep: time.Minute})
	m, _ := NewMeter(cfg, []string{ss[0].ID}, nil, time.Time{})
	all, _ := m.Update()
	if all.Cost != 0 || all.ByModel["claude-unknown-9"].Priced || len(all.NoPrice()) != 1 || !tokensEqual(all.Tokens, ss[0].Total) {
		t.Errorf("unknown model: %+v", all)
	}
	mid := all.First.Add(all.Last.Sub(all.First) / 2)
	m2, _ := NewMeter(cfg, []string{ss[0].ID}, nil, mid)
	part, _ := m2.Update()
	if part.Turns == 0 || part.Turns >= all.Turns || part.First.Before(mid) {
		t.Errorf("since %s: %d of %d turns, first %s", mid, part.Turns, all.Turns, part.First)
	}
}

func TestCost(t *testing.T) {
	tab := Shipped()
	p, fam, ok := tab.Lookup("claude-sonnet-4-5-20250929")
	if !ok || fam != "claude-sonnet-4-5" {
		t.Fatalf("sonnet 4.5 snapshot: %v %q", ok, fam)
	}
	u := transcript.Usage{Input: 1000, Output: 2000, CacheWrite: 3000, CacheRead: 4000, Split: true, CacheWrite1h: 1000}
	want := (1000*3 + 2000*15 + 2000*3.75 + 1000*6 + 4000*0.3) / 1e6
	if c := p.Cost(u); math.Abs(c-want) > 1e-12 {
		t.Errorf("cost %v, want %v", c, want)
	}
	// Over 200k input tokens in all: the long-context rates for the whole response.
	u = transcript.Usage{Input: 10, CacheRead: 250_000, Output: 100}
	want = (10*6 + 250_000*0.6 + 100*22.5) / 1e6
	if c := p.Cost(u); math.Abs(c-want) > 1e-12 {
		t.Errorf("long-context cost %v, want %v", c, want)
	}
	for _, m := range []string{"claude-sonnet-4-7", "claude-opus-4-9", "claude-opus-5-6", "gpt-5", "claude-sonnet-4-5x", "<synthetic>"} {
		if _, fam, ok := tab.Lookup(m); ok {
			t.Errorf("%s priced as %s: a guess", m, fam)
		}
	}
	for _, m := range []string{"claude-opus-4-5@20251101", "us.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-opus-5-5", "claude-sonnet-4-6[1m]"} {
		if _, _, ok := tab.Lookup(m); !ok {
			t.Errorf("%s: no price", m)
		}
	}
}

// TestPriceFile: a price file's models are laid over the shipped table; one
// with mistakes is refused whole, each mistake at its line:col, and the
// shipped table used.
func TestPriceFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "prices.yaml")
	if tab, err := LoadTable(p); err != nil || tab.Source != "shipped" {
		t.Fatalf("no file: %v %v", tab.Source, err)
	}
	os.WriteFile(p, []byte("date: 2027-01-05\nmodels:\n  claude-opus-5-5: {input: 1, output: 2, cache_write_5m: 3, cache_write_1h: 4, cache_read: 5}\n  my-model: {input: 1, output: 1, cache_write_5m: 1, cache_write_1h: 1, cache_read: 1}\n"), 0o600)
	tab, err := LoadTable(p)
	if err != nil || tab.Date != "2027-01-05" || tab.Source != p {
		t.Fatalf("good file: %v", err)
	}
	if pr, _, _ := tab.Lookup("claude-opus-5-5"); pr.Input != 1 {
		t.Errorf("override not taken: %+v", pr)
	}
	if _, _, ok := tab.Lookup("claude-haiku-4-5"); !ok {
		t.Errorf("shipped models lost")
	}
	// The shipped tables share one parse: the file laid over one changed none.
	if pr, _, _ := Shipped().Lookup("claude-opus-5-5"); pr.Input == 1 || Shipped().Source != "shipped" {
		t.Errorf("the shipped table took the file's price: %+v", pr)
	}
	for _, c := range []struct{ file, want string }{
		{"models:\n  claude-x: {input: -1, output: 1, cache_write_5m: 1, cache_write_1h: 1, cache_read: 1}\n", "prices.yaml:2:21: models.claude-x.input: want a price in USD per million tokens (a number from 0 up), not \"-1\""},
		{"models:\n  claude-x: {input: 1, output: 1, cache_write_5m: 1, cache_read: 1}\n", "prices.yaml:2:13: models.claude-x: missing cache_write_1h"},
		{"models:\n  claude-x: {input: 1, outptu: 1}\n", "prices.yaml:2:24: models.claude-x: unknown key \"outptu\""},
		{"date: yesterday\n", "prices.yaml:1:7: date: want YYYY-MM-DD"},
		{"colour: red\n", "prices.yaml:1:1: unknown key \"colour\""},
		{"models:\n  Bad Model: {}\n", "prices.yaml:2:3: models: \"Bad Model\" is not a model id"},
		{"models: [\n", "prices.yaml:"},
		{"models:\n  claude-x:\n    {input: 1, output: 1, cache_write_5m: 1, cache_write_1h: 1, cache_read: 1,\n     long_context: {input: 2, output: 2, cache_write_5m: 2, cache_write_1h: 2, cache_read: 2}}\n", "prices.yaml:4:20: models.claude-x.long_context: needs above:"},
	} {
		os.WriteFile(p, []byte(c.file), 0o600)
		tab, err := LoadTable(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || tab.Source != "shipped" {
			t.Errorf("%q: %v (source %s), want %q", c.file, err, tab.Source, c.want)
		}
	}
}

// TestPriceFileThatIsNotAFile: a price file replaced by a link to
// /dev/zero (which once grew `teamctl usage` until the OOM killer came), a
// FIFO (which held it forever), a folder or a file over the limit is not
// read: LoadTable says why at once and gives the shipped table.
func TestPriceFileThatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 10<<30); err != nil { // sparse: 10 GiB that take no disk
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder.yaml")
	os.Mkdir(folder, 0o700)
	for p, want := range map[string]string{
		zero:   "refusing to read through a symlink: " + zero,
		fifo:   fifo + ": not a regular file",
		folder: folder + ": not a regular file",
		big:    "big.yaml:1:1: 10737418240 bytes or more, over the 1048576-byte limit",
	} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			tab, err := LoadTable(p)
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "the shipped prices are") || tab.Source != "shipped" {
				t.Errorf("%s: %v (source %s), want %q", p, err, tab.Source, want)
			}
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: LoadTable still reading after a minute", p)
		}
	}
}

// TestLoadPrices: the one loader reads the price file in teamctl's config
// folder (XDG_CONFIG_HOME/teamctl/prices.yaml); with none there, the
// shipped table; with mistakes, the shipped table and where they are.
func TestLoadPrices(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if tab, err := LoadPrices(); err != nil || tab.Source != "shipped" {
		t.Fatalf("no price file: %s %v", tab.Source, err)
	}
	p := filepath.Join(dir, "teamctl", PriceFileName)
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, []byte("models:\n  my-model: {input: 1, output: 1, cache_write_5m: 1, cache_write_1h: 1, cache_read: 1}\n"), 0o600)
	if tab, err := LoadPrices(); err != nil || tab.Source != p {
		t.Fatalf("price file: %s %v", tab.Source, err)
	} else if _, _, ok := tab.Lookup("my-model"); !ok {
		t.Error("the price file's model is not in the table")
	}
	os.WriteFile(p, []byte("models: [\n"), 0o600)
	var pe *PriceFileError
	if tab, err := LoadPrices(); !errors.As(err, &pe) || tab.Source != "shipped" {
		t.Errorf("a price file with mistakes: %s %v", tab.Source, err)
	}
}

// TestMeterOnMain: OnMain is given each response of a session's main
// transcript once, in order (the synthetic API errors it does not count
// among them), and none of its subagents'.
func TestMeterOnMain(t *testing.T) {
	cfg := t.TempDir()
	id := "0123abcd-0000-4000-8000-00000000000a"
	dir := filepath.Join(cfg, "projects", "-w")
	os.MkdirAll(filepath.Join(dir, id, "subagents"), 0o700)
	line := func(msg, model string, sidechain bool) string {
		return fmt.Sprintf(`{"type":"assistant","isSidechain":%t,"message":{"id":"%s","model":"%s","usage":{"input_tokens":1,"output_tokens":1}}}`+"\n", sidechain, msg, model)
	}
	os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(line("m1", "claude-sonnet-4-5", false)+line("e1", "<synthetic>", false)), 0o600)
	os.WriteFile(filepath.Join(dir, id, "subagents", "agent-a.jsonl"), []byte(line("s1", "claude-sonnet-4-5", true)), 0o600)
	m, err := NewMeter(cfg, []string{id}, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	m.OnMain = func(session string, r transcript.Response) { got = append(got, session+" "+r.MessageID) }
	if tot, _ := m.Update(); tot.Turns != 2 {
		t.Errorf("%d turns counted, want 2 (m1 and the subagent's)", tot.Turns)
	}
	m.Update()
	if want := []string{id + " m1", id + " e1"}; !slices.Equal(got, want) {
		t.Errorf("OnMain got %q, want %q", got, want)
	}
}

// TestMeterFindsASubagentThatCameLater: a subagent's transcript that
// appears after a Meter's first Update (as Claude Code writes one once the
// subagent starts) is counted at the next, though the session's main
// transcript is not looked for again in every project folder.
func TestMeterFindsASubagentThatCameLater(t *testing.T) {
	cfg := t.TempDir()
	ss, err := transcriptgen.Write(cfg, transcriptgen.Options{Seed: 11, Sessions: 1, Turns: 20, Subagents: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	subs := filepath.Dir(s.Subagents[0])
	aside := filepath.Join(cfg, "aside")
	if err := os.Rename(subs, aside); err != nil {
		t.Fatal(err)
	}
	m, err := NewMeter(cfg, []string{s.ID}, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := m.Update()
	if first.Turns >= s.Responses {
		t.Fatalf("without its subagents: %d turns, want fewer than %d", first.Turns, s.Responses)
	}
	if err := os.Rename(aside, subs); err != nil {
		t.Fatal(err)
	}
	got, notes := m.Update()
	if !tokensEqual(got.Tokens, s.Total) || got.Turns != s.Responses || len(notes) != 0 {
		t.Errorf("after its subagents came: %+v (%d turns) %q, want %+v (%d)", got.Tokens, got.Turns, notes, s.Total, s.Responses)
	}
	if n := len(m.Files()); n != 1+len(s.Subagents) {
		t.Errorf("%d files followed, want %d", n, 1+len(s.Subagents))
	}
}
