package worktrees

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"maps"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A folder's tree without an index. stateTreeOf makes it with three git
// commands a folder (a copy of its index, add, write-tree): most of the
// conflict radar's processor time, as git reads and writes the whole index
// twice to change a few entries. The tree is HEAD's with each file status
// listed set as the folder has it, and status says nearly all of it already:
// a file whose folder state is its index's ("M.") has its index's id and
// mode, one gone from the folder is out. Only the files changed in the folder
// are hashed (one `hash-object -w --stdin-paths` a folder: git's own filters
// on them, as add's), and the trees on their paths are made here from HEAD's
// (read with one `cat-file --batch` for every folder of a repository) and
// written with one `unpack-objects` for them all. On this 2-core machine,
// bench/radar's 8 folders: 150 -> 118 ms of processor time.
//
// Whatever this cannot make as add and write-tree would is left to them
// (planTree says no): unmerged files, submodules, symlinks, a new file with
// an execute bit (whether git keeps it depends on core.fileMode), a file with
// a carriage return (autocrlf keeps one in a file whose index's copy has
// one, which only add looks at), a changed .gitattributes, a sparse
// checkout, names git's line protocols cannot carry, HEAD trees in modes the
// index would not keep.

// treePlan is how a folder's tree is made from HEAD's: each path status
// listed, as the folder has it.
type treePlan struct {
	head string
	set  map[string]treeEntry // path: its entry; mode "" when it is out
	// fallback is what stateTreeOf takes when the plan cannot be carried
	// out (a git command of the batch failed).
	fallback []string
}

// treeEntry is a file's entry in a tree: its mode as git writes it and its
// object's id (hex).
type treeEntry struct{ mode, id string }

const (
	modeNone = "000000"
	modeFile = "100644"
	modeExec = "100755"
	modeTree = "40000"
)

// errNoPlan: the folder's tree is left to add and write-tree.
var errNoPlan = errors.New("no plan")

// planTree plans the tree of the folder at top (HEAD head) from what status
// listed of it (entries), leaving out what leftOut names, and hashes the
// files changed in the folder; add is what stateTreeOf would take. It is
// errNoPlan when the tree is to be left to add and write-tree.
func planTree(ctx context.Context, top, head string, entries []statusEntry, leftOut []LeftOut, add []string) (*treePlan, error) {
	gitdir, err := checkoutGitDir(top)
	if err != nil {
		return nil, errNoPlan
	}
	for _, f := range []string{filepath.Join(gitdir, "info", "sparse-checkout"), filepath.Join(gitdir, "..", "..", "info", "sparse-checkout")} {
		if _, err := os.Lstat(f); err == nil {
			return nil, errNoPlan // attributes may come from files not in the folder
		}
	}
	skip := map[string]bool{}
	for _, l := range leftOut {
		skip[l.Path] = true
	}
	p := &treePlan{head: head, set: map[string]treeEntry{}, fallback: add}
	var hashed []string
	fromFolder := func(name, mode string) error {
		if strings.ContainsAny(name, "\n\r") || strings.HasPrefix(name, `"`) {
			return errNoPlan // hash-object --stdin-paths takes a line, unquoting a quoted one
		}
		b, err := os.ReadFile(filepath.Join(top, name))
		if err != nil || bytes.IndexByte(b, '\r') >= 0 {
			return errNoPlan // gone since status, or autocrlf may keep or drop it
		}
		p.set[name] = treeEntry{mode: mode}
		hashed = append(hashed, name)
		return nil
	}
	for _, e := range entries {
		if e.kind == 'u' || e.sub != "N..." && e.kind != '?' || path.Base(e.path) == ".gitattributes" || path.Base(e.orig) == ".gitattributes" {
			return nil, errNoPlan
		}
		if strings.Contains(e.path+e.orig, "\n") {
			return nil, errNoPlan // cat-file --batch takes a line
		}
		switch {
		case e.kind == '?':
			if skip[e.path] || strings.HasSuffix(e.path, "/") {
				continue // left out (a folder listed is a repository of its own)
			}
			fi, err := os.Lstat(filepath.Join(top, e.path))
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o100 != 0 {
				return nil, errNoPlan
			}
			if err := fromFolder(e.path, modeFile); err != nil {
				return nil, err
			}
			continue
		case e.modeH == "160000" || e.modeI == "160000" || e.modeW == "160000":
			return nil, errNoPlan
		}
		if e.kind == '2' {
			if e.xy[1] == 'R' || e.xy[1] == 'C' {
				return nil, errNoPlan // a rename in the folder (of an intent to add)
			}
			if e.xy[0] == 'R' {
				p.set[e.orig] = treeEntry{} // the index has it no more
			}
		}
		switch {
		case skip[e.path] || e.xy[1] == '.':
			// As the index has it: left out, or the folder's file is the
			// index's. Not in the index (an intent to add is not): out.
			switch e.modeI {
			case modeNone:
				p.set[e.path] = treeEntry{}
			case modeFile, modeExec, "120000":
				p.set[e.path] = treeEntry{mode: e.modeI, id: e.idI}
			default:
				return nil, errNoPlan
			}
		case e.modeW == modeNone:
			p.set[e.path] = treeEntry{} // gone from the folder
		case e.modeW == modeFile || e.modeW == modeExec:
			// Status's mode for the folder's file is add's (core.fileMode
			// and core.symlinks applied).
			if err := fromFolder(e.path, e.modeW); err != nil {
				return nil, err
			}
		default:
			return nil, errNoPlan
		}
	}
	if len(hashed) > 0 {
		out, err := gitEnv(ctx, top, nil, strings.Join(hashed, "\n")+"\n", "hash-object", "-w", "--stdin-paths")
		if err != nil {
			return nil, errNoPlan // add says why, if it fails too
		}
		ids := strings.Fields(out)
		if len(ids) != len(hashed) {
			return nil, fmt.Errorf("git hash-object of %d files said %q", len(hashed), out)
		}
		for i, name := range hashed {
			e := p.set[name]
			e.id = ids[i]
			p.set[name] = e
		}
	}
	return p, nil
}

// makeTrees makes the tree of each plan, all of the repository dir is in:
// one `cat-file --batch` for the HEAD trees on the plans' paths, one
// `unpack-objects` for the trees made.
func makeTrees(ctx context.Context, dir string, plans []*treePlan) ([]string, error) {
	type dirKey struct{ head, dir string }
	// dirsOf are the folders above a plan's paths, the top ("") among them.
	dirsOf := func(p *treePlan) []string {
		seen := map[string]bool{}
		var dirs []string
		for name := range p.set {
			for d := parentDir(name); !seen[d]; d = parentDir(d) {
				seen[d] = true
				dirs = append(dirs, d)
				if d == "" {
					break
				}
			}
		}
		return dirs
	}
	var keys []dirKey
	seen := map[dirKey]bool{}
	for _, p := range plans {
		if !isObjectID(p.head) || len(p.head) != len(plans[0].head) {
			return nil, fmt.Errorf("%q is no commit id", p.head)
		}
		for _, d := range dirsOf(p) {
			if k := (dirKey{p.head, d}); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	var req strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&req, "%s:%s\n", k.head, k.dir) // "<commit>:" is its tree
	}
	out, err := gitEnv(ctx, dir, nil, req.String(), "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("the trees of %d folders: %w", len(keys), err)
	}
	rawLen := len(plans[0].head) / 2
	// HEAD's folders: their entries, and their tree's id ("" when HEAD has
	// none there).
	type folder struct {
		entries map[string]treeEntry
		id      string
	}
	inHead := map[dirKey]folder{}
	for _, k := range keys {
		line, rest, ok := strings.Cut(out, "\n")
		if !ok {
			return nil, fmt.Errorf("git cat-file: unexpected %.80q", out)
		}
		out = rest
		f := strings.Fields(line)
		fo := folder{entries: map[string]treeEntry{}}
		if len(f) == 2 && f[1] == "missing" {
			inHead[k] = fo // not in HEAD: a new folder
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("git cat-file: unexpected %.80q", line)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size+1 > len(out) {
			return nil, fmt.Errorf("git cat-file: unexpected %.80q", line)
		}
		body := out[:size]
		out = out[size+1:]
		if f[1] == "tree" {
			fo.id = f[0]
			if err := parseTree(body, rawLen, fo.entries); err != nil {
				return nil, fmt.Errorf("tree %s: %w", f[0], err)
			}
		} // else a file in HEAD where the folder has a folder now: replaced
		inHead[k] = fo
	}
	newHash := sha1.New
	if rawLen == sha256.Size {
		newHash = sha256.New
	}
	trees := make([]string, len(plans))
	var written []string // the trees made, that HEAD does not have
	for i, p := range plans {
		dirs := dirsOf(p)
		folders := map[string]map[string]treeEntry{}
		for _, d := range dirs {
			folders[d] = maps.Clone(inHead[dirKey{p.head, d}].entries)
		}
		for name, e := range p.set {
			if e.mode == "" {
				delete(folders[parentDir(name)], path.Base(name))
			} else {
				folders[parentDir(name)][path.Base(name)] = e
			}
		}
		// The deepest first: a folder's tree before its parent's.
		sort.Slice(dirs, func(a, b int) bool {
			if na, nb := depth(dirs[a]), depth(dirs[b]); na != nb {
				return na > nb
			}
			return dirs[a] < dirs[b]
		})
		for _, d := range dirs {
			entries := folders[d]
			content, err := treeContent(entries)
			if err != nil {
				return nil, err
			}
			id := objectID(newHash(), "tree", content)
			if d == "" {
				trees[i] = id
			} else {
				parent, base := folders[parentDir(d)], path.Base(d)
				switch old, ok := parent[base]; {
				case len(entries) == 0:
					if ok && old.mode == modeTree {
						delete(parent, base) // git keeps no empty folder
					}
				case ok && old.mode != modeTree:
					// HEAD's file there is not gone from the folder:
					// status said nothing of it.
					return nil, fmt.Errorf("%s is a file and a folder", d)
				default:
					parent[base] = treeEntry{mode: modeTree, id: id}
				}
			}
			if (len(entries) > 0 || d == "") && id != inHead[dirKey{p.head, d}].id {
				written = append(written, content)
			}
		}
	}
	if err := writeTrees(ctx, dir, written, newHash); err != nil {
		return nil, err
	}
	return trees, nil
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

func parentDir(d string) string {
	if p := path.Dir(d); p != "." {
		return p
	}
	return ""
}

// parseTree reads a tree's entries into entries: modes as the index keeps
// them only (a tree written otherwise is left to write-tree, which would
// write them its way).
func parseTree(body string, rawLen int, entries map[string]treeEntry) error {
	for len(body) > 0 {
		head, rest, ok := strings.Cut(body, "\x00")
		mode, name, ok2 := strings.Cut(head, " ")
		if !ok || !ok2 || len(rest) < rawLen {
			return errors.New("cannot be read")
		}
		switch mode {
		case modeFile, modeExec, "120000", "160000", modeTree:
		default:
			return errNoPlan
		}
		entries[name] = treeEntry{mode: mode, id: hex.EncodeToString([]byte(rest[:rawLen]))}
		body = rest[rawLen:]
	}
	return nil
}

// treeContent is a tree object's content: its entries in git's order (a
// folder's name sorts as if it ended in "/").
func treeContent(entries map[string]treeEntry) (string, error) {
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	key := func(n string) string {
		if entries[n].mode == modeTree {
			return n + "/"
		}
		return n
	}
	sort.Slice(names, func(a, b int) bool { return key(names[a]) < key(names[b]) })
	var b strings.Builder
	for _, n := range names {
		e := entries[n]
		raw, err := hex.DecodeString(e.id)
		if err != nil || !isObjectID(e.id) {
			return "", fmt.Errorf("%s: %q is no object id", n, e.id)
		}
		b.WriteString(e.mode + " " + n + "\x00")
		b.Write(raw)
	}
	return b.String(), nil
}

// objectID is the id git gives an object of type kind and content.
func objectID(h hash.Hash, kind, content string) string {
	fmt.Fprintf(h, "%s %d\x00", kind, len(content))
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}

// writeTrees writes the trees (their contents) with one git command, as a
// pack for `git unpack-objects` to unpack: no file a tree (a file made in
// the temporary folder cost more than git's whole work on it here).
func writeTrees(ctx context.Context, dir string, contents []string, newHash func() hash.Hash) error {
	if len(contents) == 0 {
		return nil
	}
	var pack bytes.Buffer
	pack.WriteString("PACK")
	n := len(contents)
	pack.Write([]byte{0, 0, 0, 2, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}) // version 2, n objects
	// Stored, not compressed: git compresses each object it writes anyway.
	z, err := zlib.NewWriterLevel(&pack, zlib.NoCompression)
	if err != nil {
		return err
	}
	for _, c := range contents {
		// The object's header: its type (2, a tree) and size, 7 bits a byte
		// after the first's 4.
		n := len(c)
		b := byte(2<<4 | n&0x0f)
		for n >>= 4; n > 0; n >>= 7 {
			pack.WriteByte(b | 0x80)
			b = byte(n & 0x7f)
		}
		pack.WriteByte(b)
		z.Reset(&pack)
		z.Write([]byte(c))
		if err := z.Close(); err != nil {
			return err
		}
	}
	h := newHash()
	h.Write(pack.Bytes())
	pack.Write(h.Sum(nil))
	if _, err := gitEnv(ctx, dir, nil, pack.String(), "unpack-objects", "-q"); err != nil {
		return fmt.Errorf("write %d trees: %w", len(contents), err)
	}
	return nil
}
