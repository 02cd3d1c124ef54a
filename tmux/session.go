package tmux

// A team's session is found through its panes, never by name alone: a person
// may rename the session (and `attach -d` or a script may have made others),
// and it is still the team's.

// TeamPane finds, among the server's panes, the first of prefer (pane ids, in
// order of preference: the lead's first) that is there, else any pane teamctl
// marked as a member (@teamctl-member).
func TeamPane(panes []Pane, prefer []string) (Pane, bool) {
	byID := map[string]Pane{}
	for _, p := range panes {
		byID[p.ID] = p
	}
	for _, id := range prefer {
		if p, ok := byID[id]; ok {
			return p, true
		}
	}
	for _, p := range panes {
		if p.Member != "" {
			return p, true
		}
	}
	return Pane{}, false
}

// TeamSession is the team's session: that of one of its panes (TeamPane), by
// id; when none of its panes is left, the session called name, else the
// server's first. ok is false when the server has no session at all.
func TeamSession(panes []Pane, prefer []string, name string) (id, sessionName string, ok bool) {
	if p, ok := TeamPane(panes, prefer); ok && p.SessionID != "" {
		return p.SessionID, p.Session, true
	}
	for _, p := range panes {
		if p.Session == name && p.SessionID != "" {
			return p.SessionID, p.Session, true
		}
	}
	if len(panes) > 0 && panes[0].SessionID != "" {
		return panes[0].SessionID, panes[0].Session, true
	}
	return "", "", false
}

// TeamSessionTarget is the exact target of the team's session (TeamSession),
// or of the session called name when the server has none.
func TeamSessionTarget(panes []Pane, prefer []string, name string) string {
	if id, _, ok := TeamSession(panes, prefer, name); ok {
		return id
	}
	return SessionTarget(name)
}
