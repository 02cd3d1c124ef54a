package usage

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/teamctl/teamctl/claudecode/transcript"
	"github.com/teamctl/teamctl/internal/safefile"
	"github.com/teamctl/teamctl/state"
)

//go:embed prices.yaml
var shippedYAML []byte

// Rates are USD per million tokens of each kind.
type Rates struct {
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheWrite5m float64 `json:"cache_write_5m"`
	CacheWrite1h float64 `json:"cache_write_1h"`
	CacheRead    float64 `json:"cache_read"`
}

// Price is one model family's price: Rates, and the long-context tier's
// rates for a request whose whole input is over LongAbove tokens (Long nil:
// none).
type Price struct {
	Rates
	LongAbove int64
	Long      *Rates
}

// Cost is what a response that used u costs at p.
func (p Price) Cost(u transcript.Usage) float64 {
	r := p.Rates
	if p.Long != nil && u.Input+u.CacheWrite+u.CacheRead > p.LongAbove {
		r = *p.Long
	}
	w5, w1 := u.CacheWrite, int64(0)
	if u.Split {
		w1 = min(u.CacheWrite1h, u.CacheWrite)
		w5 = u.CacheWrite - w1
	}
	return (float64(u.Input)*r.Input + float64(u.Output)*r.Output + float64(w5)*r.CacheWrite5m +
		float64(w1)*r.CacheWrite1h + float64(u.CacheRead)*r.CacheRead) / 1e6
}

// Table is a price list: the one shipped with teamctl, or it with a price
// file's models laid over it.
type Table struct {
	Date   string // the date the prices were read, YYYY-MM-DD
	Source string // "shipped", or the price file laid over it
	models map[string]Price
	keys   []string     // longest first
	looked sync.Map     // model id → lookup: Lookup's answers (few models, thousands of responses)
	nlook  atomic.Int32 // how many looked holds: a transcript may name any number of models
}

// Shipped is the price table shipped with teamctl: a table of its own at
// each call (its own Lookup answers), over the one parse of prices.yaml.
func Shipped() *Table {
	s := shippedParse()
	return &Table{Date: s.Date, Source: "shipped", models: s.models, keys: s.keys}
}

// shippedParse is prices.yaml parsed, once: a Meter of each session (as
// bench/usage makes them) parsed it each, 0.2 ms of YAML apiece. Its models
// and keys are only read after the parse, so tables share them.
var shippedParse = sync.OnceValue(func() *Table {
	t, problems := parseTable(shippedYAML, "prices.yaml (shipped)", nil)
	if len(problems) > 0 {
		panic("usage: the shipped prices.yaml: " + problems[0].String())
	}
	return t
})

// PriceFileName is the price file's name in teamctl's config folder.
const PriceFileName = "prices.yaml"

// maxPriceFile is the largest price file read.
const maxPriceFile = 1 << 20

// Problem is one mistake in a price file, where it is.
type Problem struct {
	File      string
	Line, Col int
	Msg       string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg) }

// PriceFileError is a price file with mistakes; LoadTable then gives the
// shipped table.
type PriceFileError struct{ Problems []Problem }

func (e *PriceFileError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return "price file not used, the shipped prices are: " + strings.Join(lines, "; ")
}

// LoadPrices is the price table teamctl prices with: the shipped one with
// the price file in teamctl's config folder (PriceFileName) laid over it
// (LoadTable), or the shipped one alone when there is no config folder. The
// one loader of prices, for `teamctl usage` and the supervisor's budgets
// alike: a *PriceFileError says what is wrong with the file, and the
// shipped table comes with it.
func LoadPrices() (*Table, error) {
	root, err := state.ConfigRoot()
	if err != nil {
		return Shipped(), nil
	}
	return LoadTable(filepath.Join(root, PriceFileName))
}

// LoadTable is the shipped table with the models of the price file at path
// laid over it. No file is no error; a file with mistakes gives the shipped
// table and a *PriceFileError saying where each is (line:col).
func LoadTable(path string) (*Table, error) {
	shipped := Shipped()
	// Agents run as the user and can replace the file: it is read only as
	// a regular file, never through a symlink (one to /dev/zero grew
	// `teamctl usage` until the OOM killer came), opened without waiting
	// (a FIFO held it forever) and no further than the limit.
	data, err := safefile.ReadFile(path, maxPriceFile)
	if errors.Is(err, fs.ErrNotExist) {
		return shipped, nil
	}
	var tl *safefile.TooLargeError
	if errors.As(err, &tl) {
		return shipped, &PriceFileError{[]Problem{{path, 1, 1, fmt.Sprintf("%d bytes or more, over the %d-byte limit", tl.Size, maxPriceFile)}}}
	}
	if err != nil {
		return shipped, fmt.Errorf("price file not used, the shipped prices are: %w", err)
	}
	t, problems := parseTable(data, path, shipped)
	if len(problems) > 0 {
		return shipped, &PriceFileError{problems}
	}
	t.Source = path
	return t, nil
}

// Lookup finds model's price: the family whose key is the model id, or the
// id of one of its snapshots (key + "-YYYYMMDD" or "-YYYY-MM-DD", "@…", "-v…", "[…]"), after
// any provider prefix ("anthropic.", "us.anthropic."); ok false when no
// family is the model's.
func (t *Table) Lookup(model string) (p Price, family string, ok bool) {
	if v, found := t.looked.Load(model); found {
		l := v.(lookup)
		return l.p, l.family, l.ok
	}
	p, family, ok = t.lookup(model)
	if len(model) <= 200 && t.nlook.Load() < 1024 && t.nlook.Add(1) <= 1024 { // model ids, not any junk a member wrote, kept
		t.looked.Store(model, lookup{p, family, ok})
	}
	return p, family, ok
}

// lookup is one answer of Lookup.
type lookup struct {
	p      Price
	family string
	ok     bool
}

func (t *Table) lookup(model string) (p Price, family string, ok bool) {
	m := strings.ToLower(model)
	if i := strings.Index(m, "claude-"); i > 0 {
		m = m[i:]
	}
	for _, k := range t.keys {
		if m == k {
			return t.models[k], k, true
		}
		if rest, found := strings.CutPrefix(m, k); found && snapshotSuffix(rest) {
			return t.models[k], k, true
		}
	}
	return Price{}, "", false
}

var dated = regexp.MustCompile(`^-(\d{8}|\d{4}-\d{2}-\d{2})(\b|$|[-@\[:])`) // Anthropic's -20250929, OpenAI's -2026-03-05

func snapshotSuffix(rest string) bool {
	return dated.MatchString(rest) || strings.HasPrefix(rest, "@") || strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, "-v")
}

// Models are the table's model families, sorted.
func (t *Table) Models() []string {
	out := append([]string(nil), t.keys...)
	sort.Strings(out)
	return out
}

var modelKey = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{0,99}$`)

// parseTable reads a price file over base (nil: none).
func parseTable(data []byte, file string, base *Table) (*Table, []Problem) {
	t := &Table{models: map[string]Price{}}
	if base != nil {
		t.Date = base.Date
		for k, v := range base.models {
			t.models[k] = v
		}
	}
	var ps []Problem
	bad := func(n *yaml.Node, format string, a ...any) {
		ps = append(ps, Problem{file, n.Line, n.Column, fmt.Sprintf(format, a...)})
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 1
		if m := regexp.MustCompile(`line (\d+)`).FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return t, []Problem{{file, line, 1, strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	if len(doc.Content) == 0 {
		return t, []Problem{{file, 1, 1, "empty price file"}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		bad(root, "want a mapping with date: and models:")
		return t, ps
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "date":
			if _, err := time.Parse("2006-01-02", v.Value); v.Kind != yaml.ScalarNode || err != nil {
				bad(v, "date: want YYYY-MM-DD, the day the prices were read")
			} else {
				t.Date = v.Value
			}
		case "models":
			if v.Kind != yaml.MappingNode {
				bad(v, "models: want a mapping of model family to prices")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				mk, mv := v.Content[j], v.Content[j+1]
				if !modelKey.MatchString(mk.Value) {
					bad(mk, "models: %q is not a model id (lowercase letters, digits, . and -)", mk.Value)
					continue
				}
				if p, ok := parsePrice(mv, "models."+mk.Value, bad); ok {
					t.models[mk.Value] = p
				}
			}
		default:
			bad(k, "unknown key %q (want date or models)", k.Value)
		}
	}
	for k := range t.models {
		t.keys = append(t.keys, k)
	}
	sort.Slice(t.keys, func(i, j int) bool {
		if len(t.keys[i]) != len(t.keys[j]) {
			return len(t.keys[i]) > len(t.keys[j])
		}
		return t.keys[i] < t.keys[j]
	})
	return t, ps
}

var rateKeys = []string{"input", "output", "cache_write_5m", "cache_write_1h", "cache_read"}

func parsePrice(n *yaml.Node, where string, bad func(*yaml.Node, string, ...any)) (Price, bool) {
	var p Price
	r, ok := parseRates(n, where, bad, true)
	p.Rates = r
	if !ok {
		return p, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "long_context" {
			continue
		}
		lc := n.Content[i+1]
		lr, lok := parseRates(lc, where+".long_context", bad, false)
		above := int64(0)
		for j := 0; j+1 < len(lc.Content); j += 2 {
			if lc.Content[j].Value == "above" {
				v, err := strconv.ParseInt(lc.Content[j+1].Value, 10, 64)
				if err != nil || v <= 0 {
					bad(lc.Content[j+1], "%s.long_context.above: want a whole number of input tokens above 0", where)
					lok = false
				}
				above = v
			}
		}
		if above == 0 && lok {
			bad(lc, "%s.long_context: needs above: (the input tokens over which it applies)", where)
			lok = false
		}
		if !lok {
			return p, false
		}
		p.Long, p.LongAbove = &lr, above
	}
	return p, true
}

func parseRates(n *yaml.Node, where string, bad func(*yaml.Node, string, ...any), top bool) (Rates, bool) {
	var r Rates
	if n.Kind != yaml.MappingNode {
		bad(n, "%s: want a mapping of %s", where, strings.Join(rateKeys, ", "))
		return r, false
	}
	seen := map[string]bool{}
	ok := true
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var dst *float64
		switch k.Value {
		case "input":
			dst = &r.Input
		case "output":
			dst = &r.Output
		case "cache_write_5m":
			dst = &r.CacheWrite5m
		case "cache_write_1h":
			dst = &r.CacheWrite1h
		case "cache_read":
			dst = &r.CacheRead
		case "long_context":
			if top {
				continue
			}
			fallthrough
		case "above":
			if !top {
				continue
			}
			fallthrough
		default:
			bad(k, "%s: unknown key %q (want %s)", where, k.Value, strings.Join(rateKeys, ", "))
			ok = false
			continue
		}
		f, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f > 1e6 {
			bad(v, "%s.%s: want a price in USD per million tokens (a number from 0 up), not %q", where, k.Value, v.Value)
			ok = false
			continue
		}
		*dst = f
		seen[k.Value] = true
	}
	for _, k := range rateKeys {
		if !seen[k] && ok {
			bad(n, "%s: missing %s", where, k)
			ok = false
		}
	}
	return r, ok
}
