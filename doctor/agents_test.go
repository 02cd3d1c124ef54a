package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamctl/teamctl/layouts"
)

// TestAgentChecks: each agent CLI kind the layout's members are is checked
// once: not found (with how to install it), a version teamctl's tests did
// not run on (a warning), a tested one.
func TestAgentChecks(t *testing.T) {
	dir := t.TempDir()
	prog := func(name, version string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\necho '"+version+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old, tested := prog("codex-old", "codex-cli 0.1.0"), prog("gemini-ok", "0.61.0")
	for _, c := range []struct {
		name, src string
		want      []string // name ok warn detail-or-fix prefix
	}{
		{"missing", "agent: codex\nagents: {codex: {command: " + filepath.Join(dir, "none") + "}}\nmembers: [{name: a}, {name: b}]\n",
			[]string{"codex false false npm install -g @openai/codex@0.171.0"}},
		{"untested and tested", "members: [{name: a, agent: codex}, {name: b, agent: gemini}, {name: c, command: [true]}]\nagents: {codex: {command: " + old + "}, gemini: {command: " + tested + "}}\n",
			[]string{"codex true true its screens and files may differ", "gemini true false "}},
		{"none", "members: [{name: c, command: [true]}]\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := layouts.ParseBytes(filepath.Join(dir, "t.yaml"), []byte("team: t\nroot: "+dir+"\n"+c.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, ch := range agentChecks(context.Background(), l) {
				got = append(got, ch.Name+" "+map[bool]string{true: "true", false: "false"}[ch.OK]+" "+map[bool]string{true: "true", false: "false"}[ch.Warn]+" "+ch.Fix)
			}
			if len(got) != len(c.want) {
				t.Fatalf("checks %q, want %q", got, c.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("check %q, want %q…", got[i], c.want[i])
				}
			}
		})
	}
}
