// Package deploydir deploys the models a folder holds: every .bpmn, .dmn
// and .form file under it, at start-up and again whenever what the folder
// holds changes — for GitOps and containers, where the models ship beside
// the server instead of through its API.
//
// The folder is polled, not watched through the kernel: polling sees the
// changes of network file systems and of Kubernetes volumes (whose files
// are symbolic links swapped all at once) the same way. A poll only stats
// the files (and resolves the links on the way); they are read when a
// name, size, modification time or link target changed, and deployed when
// their content did. A change is deployed once the folder held still for
// one poll, so a file caught half written is not deployed (and refused) on
// the way.
//
// Every file goes into one deployment, so a process finds the forms and
// decisions it names beside it. The store keeps the version of a process or
// decision whose resource did not change, so redeploying the folder adds
// versions only for what changed. A refused deployment is logged with every
// problem and registers nothing: the running versions stay as they were,
// and the same content is not tried again until it changes. A file removed
// from the folder stays deployed.
//
// Several nodes of a cluster may watch folders of the same content: the
// store serialises deployments and keeps the version whose content is the
// same, so they make one version per change between them. A node whose
// folder holds older content than the latest version deploys it as a new
// one; where the folders may differ, one node should watch.
package deploydir

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gobpm/gobpm/internal/runtime"
)

// DefaultInterval is how often the folder is polled when Options.Interval
// is zero.
const DefaultInterval = 2 * time.Second

// DefaultMaxBytes caps what the folder's models may hold together when
// Options.MaxBytes is zero: the API's cap of one deployment.
const DefaultMaxBytes int64 = 16 << 20

// Deployer deploys files; *runtime.Runtime is one.
type Deployer interface {
	Deploy(ctx context.Context, files []runtime.File) (runtime.DeploymentResult, error)
}

// Options configure a Watcher.
type Options struct {
	// Dir is the folder; it must exist.
	Dir string
	// Interval is the poll period (DefaultInterval when zero).
	Interval time.Duration
	// Polls, when set, triggers the polls after Start instead of a ticker
	// of Interval: one poll per value received (tests drive the watcher
	// with it, without waiting on time).
	Polls <-chan time.Time
	// MaxBytes caps the files' total size (DefaultMaxBytes when zero); a
	// larger folder is refused, as the API refuses a larger upload.
	MaxBytes int64
	// Logger receives what was deployed and every refusal (slog.Default
	// when nil).
	Logger *slog.Logger
	// Report, when set, is told of every deployment from the folder and
	// every refusal, after it was logged (the host records them in its
	// audit trail and metrics). It runs on the watcher's goroutine and
	// must not block.
	Report func(Event)
}

// Principal names the deployer of the folder's deployments where the host
// records who acted (the audit trail): not a user, since whoever may write
// the folder deploys through it. Built-in user ids cannot contain a colon.
const Principal = "system:deploy-dir"

// Event is one deployment from the folder or one refusal, for
// Options.Report.
type Event struct {
	// Outcome is Deployed or Refused.
	Outcome Outcome
	// DeploymentID is the deployment's id ("" when refused).
	DeploymentID string
	// Files are the resource names the deployment held, in order.
	Files []string
	// Processes and Decisions are the versions the deployment registered
	// (a definition whose file did not change keeps its version).
	Processes, Decisions []runtime.DefinitionRef
	// Problems are why it was refused (empty when deployed).
	Problems []runtime.Problem
}

// Watcher deploys a folder's models whenever they change.
type Watcher struct {
	d    Deployer
	opts Options
	log  *slog.Logger

	mu sync.Mutex // serialises Sync; guards the fields below
	// seen is the folder's fingerprint at the last poll; triedFP and tried
	// the fingerprint and content hash last deployed or refused (triedFP
	// "": nothing was tried yet; a folder with a model has a fingerprint).
	seen    string
	triedFP string
	tried   [sha256.Size]byte

	// lastErr is the last poll's failure, logged once until it changes.
	lastErr string

	cancel context.CancelFunc // ends a deployment in flight at Stop
	done   chan struct{}
}

// New returns a watcher of opts.Dir deploying through d. It fails when the
// folder cannot be read.
func New(d Deployer, opts Options) (*Watcher, error) {
	if opts.Dir == "" {
		return nil, errors.New("deploydir: no folder")
	}
	info, err := os.Stat(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("deploydir: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("deploydir: %s is not a folder", opts.Dir)
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Watcher{d: d, opts: opts, log: log.With("deploy_dir", opts.Dir)}, nil
}

// Outcome is what one Sync did.
type Outcome int

const (
	// Unchanged: the folder holds what was last deployed or refused.
	Unchanged Outcome = iota
	// Settling: the folder changed since the last poll; it is deployed
	// once it holds still.
	Settling
	// Deployed: the folder's models were deployed.
	Deployed
	// Refused: the deployment was refused; every problem was logged.
	Refused
	// Empty: the folder holds no model.
	Empty
)

// String names the outcome.
func (o Outcome) String() string {
	return [...]string{"unchanged", "settling", "deployed", "refused", "empty"}[o]
}

// Sync polls the folder once. With settle, a change is deployed only when
// the folder looks as it did at the previous call (it held still); without,
// at once (start-up). An error is a failure to read the folder or to
// deploy other than a refusal of the models (the store was unreachable):
// the same content is tried again at the next call.
func (w *Watcher) Sync(ctx context.Context, settle bool) (Outcome, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	entries, err := w.list()
	if err != nil {
		return Unchanged, err
	}
	fp := fingerprint(entries)
	prev := w.seen
	w.seen = fp
	if settle && fp != prev {
		return Settling, nil
	}
	if len(entries) == 0 {
		return Empty, nil
	}
	if fp == w.triedFP {
		return Unchanged, nil
	}
	if total := totalSize(entries); total > w.opts.MaxBytes {
		w.triedFP, w.tried = fp, [sha256.Size]byte{}
		w.log.Error("deployment from the folder refused; the running versions stay", "files", len(entries),
			"problem", fmt.Sprintf("the models hold %d bytes together, more than the %d one deployment takes", total, w.opts.MaxBytes))
		w.report(Event{Outcome: Refused, Files: entryNames(entries), Problems: []runtime.Problem{{Rule: "too-large",
			Detail: fmt.Sprintf("the models hold %d bytes together, more than the %d one deployment takes", total, w.opts.MaxBytes)}}})
		return Refused, nil
	}
	files, sum, err := w.read(entries)
	if err != nil {
		return Unchanged, err
	}
	if w.triedFP != "" && sum == w.tried {
		w.triedFP = fp // touched, not changed
		return Unchanged, nil
	}
	res, err := w.d.Deploy(ctx, files)
	var refused *runtime.DeploymentError
	switch {
	case errors.As(err, &refused):
		w.tried, w.triedFP = sum, fp
		w.log.Error("deployment from the folder refused; the running versions stay", "files", len(files), "problems", len(refused.Problems))
		for _, p := range refused.Problems {
			w.log.Error("deployment problem", "resource", p.Resource, "element", p.Element, "rule", p.Rule, "detail", p.Detail)
		}
		w.report(Event{Outcome: Refused, Files: entryNames(entries), Problems: refused.Problems})
		return Refused, nil
	case err != nil:
		return Unchanged, fmt.Errorf("deploydir: deploy %s: %w", w.opts.Dir, err)
	}
	w.tried, w.triedFP = sum, fp
	w.log.Info("deployed from the folder", "deployment_id", res.ID, "files", len(files),
		"processes", refNames(res.Processes), "decisions", refNames(res.Decisions))
	for _, p := range res.Warnings {
		w.log.Warn("deployment warning", "resource", p.Resource, "element", p.Element, "rule", p.Rule, "detail", p.Detail)
	}
	w.report(Event{Outcome: Deployed, DeploymentID: res.ID, Files: entryNames(entries), Processes: res.Processes, Decisions: res.Decisions})
	return Deployed, nil
}

// report tells Options.Report of e, when set.
func (w *Watcher) report(e Event) {
	if w.opts.Report != nil {
		w.opts.Report(e)
	}
}

// Start deploys the folder's models now (logging a refusal) and then polls
// it every Interval until Stop or ctx's end. The first deployment's error
// (other than a refusal) is returned and nothing is started.
func (w *Watcher) Start(ctx context.Context) error {
	if _, err := w.Sync(ctx, false); err != nil {
		return err
	}
	ctx, w.cancel = context.WithCancel(ctx)
	w.done = make(chan struct{})
	go w.poll(ctx)
	return nil
}

// Stop ends the polling Start began, cancelling a deployment in flight
// (a store that does not answer does not hold the stop), and waits for it.
func (w *Watcher) Stop() {
	if w.cancel == nil {
		return
	}
	w.cancel()
	<-w.done
	w.cancel = nil
}

func (w *Watcher) poll(ctx context.Context) {
	defer close(w.done)
	polls := w.opts.Polls
	if polls == nil {
		t := time.NewTicker(w.opts.Interval)
		defer t.Stop()
		polls = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-polls:
		}
		_, err := w.Sync(ctx, true)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			w.lastErr = ""
		case err.Error() != w.lastErr: // the same failure every poll is logged once
			w.lastErr = err.Error()
			w.log.Error("deployment from the folder failed; it is tried again at every poll", "error", err)
		}
	}
}

// entry is one model file of the folder.
type entry struct {
	name string // the resource name: the path below Dir, with slashes
	path string
	size int64
	mod  time.Time
	// target is the file the path resolves to when a symbolic link is on
	// the way ("" otherwise): a Kubernetes volume swaps its targets.
	target string
}

// isModel reports whether a file name is one a deployment takes.
func isModel(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".bpmn", ".dmn", ".form":
		return true
	}
	return false
}

// list returns the folder's model files by name. Names starting with a
// dot are skipped, files and folders alike (editors' temporary files,
// Kubernetes' ..data folders, whose files the top-level links name).
// Symbolic links are followed, to files and to folders (a ConfigMap item
// with a path in a subfolder is a link to a folder); a folder reached a
// second time (a link back up) is not walked again.
func (w *Watcher) list() ([]entry, error) {
	var out []entry
	if err := w.walk(w.opts.Dir, "", false, map[string]bool{}, &out); err != nil {
		return nil, fmt.Errorf("deploydir: read %s: %w", w.opts.Dir, err)
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// walk appends the model files below dir, whose resource name is rel
// ("" for Dir), to out. linked says a symbolic link led to dir; walked
// holds the resolved folders already walked.
func (w *Watcher) walk(dir, rel string, linked bool, walked map[string]bool, out *[]entry) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if walked[real] {
		return nil
	}
	walked[real] = true
	des, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, d := range des {
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p, r := filepath.Join(dir, name), path.Join(rel, name)
		link := d.Type()&fs.ModeSymlink != 0
		if d.IsDir() {
			if err := w.walk(p, r, linked, walked, out); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if !link && !isModel(name) {
			continue
		}
		info, err := os.Stat(p) // follows a link
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while walking, or a dangling link
			}
			return err
		}
		if info.IsDir() { // a link to a folder
			if err := w.walk(p, r, true, walked, out); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if !isModel(name) || !info.Mode().IsRegular() {
			continue
		}
		e := entry{name: r, path: p, size: info.Size(), mod: info.ModTime()}
		if link || linked {
			if e.target, err = filepath.EvalSymlinks(p); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // swapped while walking: the next poll sees the new one
				}
				return err
			}
		}
		*out = append(*out, e)
	}
	return nil
}

// entryNames returns the entries' resource names.
func entryNames(entries []entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.name
	}
	return out
}

// totalSize is the entries' size together.
func totalSize(entries []entry) int64 {
	var n int64
	for _, e := range entries {
		n += e.size
	}
	return n
}

// fingerprint summarises the entries' names, sizes, times and link
// targets.
func fingerprint(entries []entry) string {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s\x00%d\x00%d\x00%s\n", e.name, e.size, e.mod.UnixNano(), e.target)
	}
	return b.String()
}

// read returns the entries' files and a hash of their names and contents.
func (w *Watcher) read(entries []entry) ([]runtime.File, [sha256.Size]byte, error) {
	var total int64
	h := sha256.New()
	files := make([]runtime.File, 0, len(entries))
	for _, e := range entries {
		data, err := os.ReadFile(e.path)
		if err != nil {
			return nil, [sha256.Size]byte{}, fmt.Errorf("deploydir: %w", err)
		}
		if total += int64(len(data)); total > w.opts.MaxBytes { // grown since the stat
			return nil, [sha256.Size]byte{}, fmt.Errorf("deploydir: the models of %s grew past %d bytes while read", w.opts.Dir, w.opts.MaxBytes)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", e.name, len(data))
		h.Write(data)
		files = append(files, runtime.File{Name: e.name, Content: data})
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return files, sum, nil
}

// refNames renders definition references as key:version.
func refNames(refs []runtime.DefinitionRef) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = fmt.Sprintf("%s:%d", r.Key, r.Version)
	}
	return out
}
