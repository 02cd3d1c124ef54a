package team

import (
	"testing"

	"github.com/teamctl/teamctl/layouts"
	"github.com/teamctl/teamctl/state"
)

// TestLayoutSizeLimitsAgree: state reads a recorded layout up to the size the
// parser accepts (state cannot import layouts).
func TestLayoutSizeLimitsAgree(t *testing.T) {
	if state.MaxLayoutSize != layouts.MaxSize {
		t.Errorf("state.MaxLayoutSize %d, layouts.MaxSize %d", state.MaxLayoutSize, layouts.MaxSize)
	}
}
