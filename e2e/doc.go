// Package e2e holds teamctl's end-to-end tests against the real Claude Code CLI,
// run offline against internal/fakeapi. They run only when TEAMCTL_E2E_CLAUDE
// names the claude binary; see README.md.
package e2e
