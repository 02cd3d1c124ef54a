package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// SettingsSource reads a --settings value the way Claude Code takes it: inline
// JSON when it starts with "{", otherwise the path of a JSON file, relative to
// dir (the folder Claude Code runs in). It returns the JSON text and the file
// it came from ("" for inline JSON). A file over MaxSettingsBytes is not read.
func SettingsSource(value, dir string) (data []byte, file string, err error) {
	if strings.HasPrefix(strings.TrimSpace(value), "{") {
		return []byte(value), "", nil
	}
	if value == "" {
		return nil, "", errors.New("--settings needs a value: inline JSON or a file")
	}
	file = value
	if !filepath.IsAbs(file) {
		file = filepath.Join(dir, file)
	}
	data, err = readCappedFollow(file, "file", MaxSettingsBytes)
	if err != nil {
		return nil, file, fmt.Errorf("read settings file: %w", err)
	}
	return data, file, nil
}

// MergeHookSettings adds teamctl's hooks (command for each of HookEvents) to a
// layout's own settings JSON, keeping every key and hook it has: teamctl's entry
// is appended to each event's list. The result is one inline --settings value,
// since Claude Code takes a single --settings.
func MergeHookSettings(layoutValue []byte, command string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(layoutValue))
	dec.UseNumber() // numbers pass through as written
	var settings map[string]any
	if err := dec.Decode(&settings); err != nil {
		return "", fmt.Errorf("settings are not a JSON object: %w", err)
	}
	if settings == nil {
		return "", errors.New("settings are not a JSON object: null")
	}
	if dec.More() {
		return "", errors.New("settings are not a JSON object: more after the object")
	}
	hooks := map[string]any{}
	if h, ok := settings["hooks"]; ok && h != nil {
		if hooks, ok = h.(map[string]any); !ok {
			return "", errors.New(`settings: "hooks" is not an object`)
		}
	}
	for _, ev := range HookEvents {
		var list []any
		if v, ok := hooks[ev]; ok && v != nil {
			if list, ok = v.([]any); !ok {
				return "", fmt.Errorf("settings: hooks.%s is not a list", ev)
			}
		}
		hooks[ev] = append(list, hookEntry(command))
	}
	settings["hooks"] = hooks
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // keep the layout's "<", ">" and "&" readable in the argv
	if err := enc.Encode(settings); err != nil {
		return "", fmt.Errorf("encode merged settings: %w", err)
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// hookEntry is one matcher group running command, matching every occurrence.
func hookEntry(command string) map[string]any {
	return map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command}}}
}
