package configs

import (
	"encoding/json"
	"io/fs"
	"testing"
)

func TestFSHoldsExamples(t *testing.T) {
	for _, name := range []string{"auth-fix.yaml", "dev-server.yaml", "demo.yaml", "parallel.yaml", "processes.yaml"} {
		if _, err := fs.Stat(FS, name); err != nil {
			t.Errorf("FS: %v", err)
		}
	}
}

func TestSchemaIsJSON(t *testing.T) {
	var v map[string]any
	if err := json.Unmarshal(Schema, &v); err != nil {
		t.Fatalf("layout.schema.json: %v", err)
	}
	if got, want := v["$schema"], "https://json-schema.org/draft/2020-12/schema"; got != want {
		t.Errorf("$schema = %v, want %v", got, want)
	}
}
