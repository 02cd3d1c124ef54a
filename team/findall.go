package team

import (
	"context"
	"os"
)

// FindOrAll is Find for a view of every team's members (teamctl top): with
// several teams up and none named (flag, TEAMCTL_TEAM), all of them, as List
// says they are up (all is then not nil). The one team found is looked at
// once, so that what is wrong with it is said before a full screen is drawn.
func FindOrAll(ctx context.Context, flag, tmuxBin string) (name string, all []string, err error) {
	return findOrAll(ctx, realWorld(tmuxBin), flag)
}

func findOrAll(ctx context.Context, w world, flag string) (string, []string, error) {
	name, err := findFor(ctx, w, flag, "")
	if err != nil && flag == "" && os.Getenv("TEAMCTL_TEAM") == "" {
		if ts, lerr := list(ctx, w); lerr == nil {
			var up []string
			for _, s := range ts {
				if s.Up {
					up = append(up, s.Team)
				}
			}
			if len(up) > 1 {
				return "", up, nil
			}
		}
	}
	if err != nil {
		return "", nil, err
	}
	t, err := open(name, w)
	if err == nil {
		_, err = t.Status(ctx)
	}
	if err != nil {
		return "", nil, err
	}
	return name, nil, nil
}
