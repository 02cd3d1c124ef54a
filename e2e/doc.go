// Package e2e holds teamctl's end-to-end tests against the real Claude Code CLI
// (and the Codex and Gemini CLIs: agentclis_test.go), run offline against
// internal/fakeapi. They run only when TEAMCTL_E2E_CLAUDE names the claude
// binary (TEAMCTL_E2E_CODEX, TEAMCTL_E2E_GEMINI theirs); see README.md.
package e2e
