package tmux

import (
	"context"
	"strconv"
	"strings"
)

// A pane's history: what it printed, as tmux keeps it (history-limit lines,
// 2000 by default, above the screen). Read back as plain text (capture-pane
// without -e: no escape sequences), wrapped lines joined.

// HistoryLines is how far back in a pane's history teamctl reads by
// default: the last words it keeps of a member, and a follow's window.
const HistoryLines = 200

// HistoryArgs is the capture-pane command for the last n lines of pane's
// history and its screen, for a Server's Run or a Control's Command.
func HistoryArgs(pane string, n int) []string {
	return []string{"capture-pane", "-p", "-J", "-S", "-" + strconv.Itoa(max(n, 0)), "-t", pane}
}

// CaptureHistory returns the last n lines of pane's history and its screen,
// TrimCapture'd.
func (s *Server) CaptureHistory(ctx context.Context, pane string, n int) ([]string, error) {
	out, err := s.Run(ctx, HistoryArgs(pane, n)...)
	if err != nil {
		return nil, err
	}
	return TrimCapture(strings.Split(out, "\n")), nil
}

// TrimCapture tidies captured lines: -J keeps the spaces at a line's end,
// which are the screen's, not the program's; the blank rows below the last
// output go too, and those between a dead pane's last output and tmux's
// notice under it (see WithoutDeadNotice).
func TrimCapture(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, strings.TrimRight(l, " "))
	}
	out = trimBlankEnd(out)
	if n := len(out); n > 0 && strings.HasPrefix(out[n-1], deadNotice) {
		out = append(trimBlankEnd(out[:n-1]), out[n-1])
	}
	return out
}

func trimBlankEnd(lines []string) []string {
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// deadNotice starts the line tmux writes under a dead pane's output when
// remain-on-exit is on (its default remain-on-exit-format, "Pane is dead
// (status 3, TIME)", and what tmux before 3.3 wrote).
const deadNotice = "Pane is dead"

// WithoutDeadNotice drops tmux's own "Pane is dead (…)" line from the end of
// a dead pane's capture (TrimCapture'd): what is left ends with the
// program's last words.
func WithoutDeadNotice(lines []string) []string {
	if n := len(lines); n > 0 && strings.HasPrefix(lines[n-1], deadNotice) {
		lines = trimBlankEnd(lines[:n-1])
	}
	return lines
}

// NewLines is what cur, a capture of a pane taken after prev with the same
// window (HistoryArgs with the same n), holds that prev did not: the lines
// printed in between. A pane that only prints (a log, a build) scrolls, so
// cur starts with the end of prev: the new lines follow the longest such
// overlap. A pane whose screen is redrawn (a full-screen program, a line
// rewritten in place) has no such overlap; then the new lines are those of
// cur that are not in its longest common subsequence with prev — the
// screen's new lines, best effort.
func NewLines(prev, cur []string) []string {
	if len(prev) == 0 {
		return cur
	}
	for d := 0; d < len(prev); d++ {
		if k := len(prev) - d; k <= len(cur) && equalLines(prev[d:], cur[:k]) {
			return cur[k:]
		}
	}
	return inserted(prev, cur)
}

func equalLines(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// maxDiffLines bounds the lines a redraw is compared over (from the end of
// each capture): the comparison costs their product.
const maxDiffLines = 400

// inserted are the lines of cur outside its longest common subsequence with
// prev (their last maxDiffLines lines each; cur's earlier lines count as old).
func inserted(prev, cur []string) []string {
	if len(prev) > maxDiffLines {
		prev = prev[len(prev)-maxDiffLines:]
	}
	if len(cur) > maxDiffLines {
		cur = cur[len(cur)-maxDiffLines:]
	}
	n, m := len(prev), len(cur)
	// lcs[i][j]: the longest common subsequence of prev[i:] and cur[j:].
	lcs := make([][]uint16, n+1)
	for i := range lcs {
		lcs[i] = make([]uint16, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case prev[i] == cur[j]:
				lcs[i][j] = lcs[i+1][j+1] + 1
			case lcs[i+1][j] >= lcs[i][j+1]:
				lcs[i][j] = lcs[i+1][j]
			default:
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	var out []string
	i, j := 0, 0
	for j < m {
		switch {
		case i < n && prev[i] == cur[j]:
			i++
			j++
		case i < n && lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			out = append(out, cur[j])
			j++
		}
	}
	return out
}
