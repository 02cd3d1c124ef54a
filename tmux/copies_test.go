package tmux

import (
	"slices"
	"sort"
	"testing"
)

// TestUnrecordedCopies: a member whose recorded pane is there keeps it and its
// copies are ended; one whose recorded pane is gone gets its newest copy
// (%10 is newer than %9), the older ones ended; panes of members teamctl does
// not relaunch, and unnamed ones, are left alone.
func TestUnrecordedCopies(t *testing.T) {
	t.Parallel()
	panes := []Pane{
		{ID: "%0", Member: "lead"},
		{ID: "%1", Member: "web"}, {ID: "%4", Member: "web"},
		{ID: "%9", Member: "api"}, {ID: "%10", Member: "api", Dead: true}, {ID: "%3", Member: "api"},
		{ID: "%5", Member: "scout"}, {ID: "%6"}, {ID: "%7", Member: ""},
	}
	recorded := map[string]string{"lead": "%0", "web": "%1", "api": "%2"}
	adopt, end := UnrecordedCopies(panes, recorded)
	if len(adopt) != 1 || adopt["api"].ID != "%10" {
		t.Errorf("adopt %v, want api's %%10", adopt)
	}
	var ids []string
	for _, p := range end {
		ids = append(ids, p.ID)
	}
	sort.Strings(ids)
	if want := []string{"%3", "%4", "%9"}; !slices.Equal(ids, want) {
		t.Errorf("end %v, want %v", ids, want)
	}
}
