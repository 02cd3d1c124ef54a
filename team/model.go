package team

import "github.com/teamctl/teamctl/team/model"

// What the verbs report and take are package model's values (apart from the
// verbs, so that the cockpits draw them without running tmux or git); they
// are named here as team's verbs have always named them.
type (
	Status           = model.Status
	SupervisorStatus = model.SupervisorStatus
	Stall            = model.Stall
	Limit            = model.Limit
	MemberStatus     = model.MemberStatus
	MemberConflict   = model.MemberConflict
	By               = model.By
	NotRecordedError = model.NotRecordedError
	Answer           = model.Answer
	Answered         = model.Answered
	MergeResult      = model.MergeResult
	Landed           = model.Landed
	Refusal          = model.Refusal
	Changes          = model.Changes
	WorkChanges      = model.WorkChanges
	FinishResult     = model.FinishResult
	Finished         = model.Finished
	FinishPlan       = model.FinishPlan
	PaneNoteKind     = model.PaneNoteKind
	PaneNote         = model.PaneNote
)

// The kinds of PaneNote.
const (
	PaneOutput   = model.PaneOutput
	PaneExit     = model.PaneExit
	PanesChanged = model.PanesChanged
)
