// Package configs holds example layouts, used by the README, the tests and
// `teamctl demo`, and the JSON Schema of the layout format for editors
// (yaml-language-server reads the `# yaml-language-server: $schema=...` line
// at the top of each example).
package configs

import "embed"

// FS holds the example layouts, *.yaml at its root.
//
//go:embed *.yaml
var FS embed.FS

// Schema is layout.schema.json, a JSON Schema (draft 2020-12) of the layout format.
//
//go:embed layout.schema.json
var Schema []byte
