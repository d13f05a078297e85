package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gobpm/gobpm/client"
)

const usage = `usage: gobpm [-o table|json] [--addr URL] [--token T] [--user U] [--groups G,…] COMMAND [ARGS]

Commands:
  deploy FILE…                          deploy BPMN and DMN files
  processes                             list deployed processes
  start KEY [--var k=v]… [--business-key K]
  instances [--status S] [--process KEY]
  instance ID                           show an instance and where it waits
  cancel ID
  tasks [--assignee U] [--group G] [--instance ID]
  complete-task ID [--var k=v]…         claim (if unassigned) and complete
  jobs activate TYPE [--max N] [--lock D] [--worker W]
  jobs complete KEY --lock-token T [--var k=v]…
  jobs fail KEY --lock-token T [--retries N] [--message M]
  incidents [--instance ID]
  retry INCIDENT-ID [--retries N]
  message NAME [--key K] [--var k=v]…
  signal NAME [--var k=v]…
  history export [--from T] [--to T] [--process KEY]… [--cursor C] [--limit N] [--cloudevents] [--all]
                                        stream history facts as NDJSON to standard output; the cursor to
                                        continue from goes to standard error (--all follows it to the end)
  batch create OPERATION [--filter name=value]… [--dry-run] [--retries N] [--target-version V]
               [--map src=dst]… [--var k=v]… [--instructions JSON]
                                        act on every instance the filter (the instances list's
                                        parameters: processKey, status, var, …) matches, in the
                                        background: cancel, retry-incidents, migrate, modify,
                                        set-variables, delete; --dry-run only counts them
  batch list [--limit N] [--offset N]   the batches, newest first
  batch get|pause|resume|cancel ID      a batch's progress; steer it
  batch items ID [--status S] [--cursor C] [--limit N]
                                        a batch's instances and their outcomes
  version                               print the version (also --version)

Environment: GOBPM_ADDR (default http://127.0.0.1:8080), GOBPM_TOKEN, GOBPM_USER, GOBPM_GROUPS.
A --var value is JSON if it parses as JSON (42, true, "x", {"a":1}), a string otherwise.
`

// errUsage marks a command line error: exit status 2.
var errUsage = errors.New("usage")

// cli is one invocation.
type cli struct {
	c      *client.Client
	out    io.Writer
	err    io.Writer // notes beside the output (the export's cursor)
	json   bool
	global globals
}

type globals struct {
	output, addr, token, user, groups string
}

// run runs the command line args and returns the exit status: 0, 1 for a
// failed call, 2 for a usage error.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	g := globals{output: "table", addr: getenv("GOBPM_ADDR"), token: getenv("GOBPM_TOKEN"), user: getenv("GOBPM_USER"), groups: getenv("GOBPM_GROUPS")}
	if g.addr == "" {
		g.addr = "http://127.0.0.1:8080"
	}
	fs := flag.NewFlagSet("gobpm", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addGlobals(fs, &g)
	showVersion := fs.Bool("version", false, "print the version and exit")
	err := fs.Parse(args)
	if err == nil && *showVersion {
		fmt.Fprintln(stdout, "gobpm", Version)
		return 0
	}
	if err != nil || fs.NArg() == 0 {
		fmt.Fprint(stderr, usage)
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	k := &cli{out: stdout, err: stderr, global: g}
	err = k.dispatch(ctx, fs.Arg(0), fs.Args()[1:])
	if errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stderr, "gobpm: %v\nRun 'gobpm -h' for usage.\n", err)
		return 2
	}
	if err != nil {
		var p *client.Problem
		if errors.As(err, &p) && k.json {
			enc := json.NewEncoder(stderr)
			enc.SetIndent("", "  ")
			_ = enc.Encode(p)
		} else {
			fmt.Fprintf(stderr, "gobpm: %v\n", err)
		}
		return 1
	}
	return 0
}

func addGlobals(fs *flag.FlagSet, g *globals) {
	fs.StringVar(&g.output, "o", g.output, "output: table or json")
	fs.StringVar(&g.addr, "addr", g.addr, "server URL")
	fs.StringVar(&g.token, "token", g.token, "bearer token")
	fs.StringVar(&g.user, "user", g.user, "acting user (X-Gobpm-User, for --auth none)")
	fs.StringVar(&g.groups, "groups", g.groups, "the acting user's groups, comma-separated (X-Gobpm-Groups)")
}

// vars collects repeated --var k=v flags.
// filters is a repeatable string flag: the variable filters of a list.
type filters []string

func (f *filters) String() string { return strings.Join(*f, " ") }

// Set adds one filter.
func (f *filters) Set(s string) error {
	*f = append(*f, s)
	return nil
}

type vars map[string]any

func (v vars) String() string { return "" }
func (v vars) Set(s string) error {
	k, val, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("--var %q is not k=v", s)
	}
	var x any
	if err := json.Unmarshal([]byte(val), &x); err != nil {
		x = val
	}
	v[k] = x
	return nil
}

// parse parses a subcommand's flags, which may come before or after its
// positional arguments, and the global flags anywhere.
func (k *cli) parse(fs *flag.FlagSet, args []string, npos int) ([]string, error) {
	fs.SetOutput(io.Discard)
	addGlobals(fs, &k.global)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", fs.Name(), errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if npos >= 0 && len(pos) != npos {
		return nil, fmt.Errorf("%s: %w: want %d argument(s), got %d", fs.Name(), errUsage, npos, len(pos))
	}
	switch k.global.output {
	case "table", "json":
	default:
		return nil, fmt.Errorf("%w: -o must be table or json, not %q", errUsage, k.global.output)
	}
	k.json = k.global.output == "json"
	opts := []client.Option{}
	if k.global.token != "" {
		opts = append(opts, client.WithToken(k.global.token))
	}
	if k.global.user != "" {
		var groups []string
		if k.global.groups != "" {
			groups = strings.Split(k.global.groups, ",")
		}
		opts = append(opts, client.WithUser(k.global.user, groups...))
	}
	c, err := client.New(k.global.addr, opts...)
	if err != nil {
		return nil, err
	}
	k.c = c
	return pos, nil
}

func (k *cli) dispatch(ctx context.Context, cmd string, args []string) error {
	switch cmd {
	case "version":
		if len(args) > 0 {
			return fmt.Errorf("version: %w: want no arguments", errUsage)
		}
		_, err := fmt.Fprintln(k.out, "gobpm", Version)
		return err
	case "deploy":
		return k.deploy(ctx, args)
	case "processes":
		return k.processes(ctx, args)
	case "start":
		return k.start(ctx, args)
	case "instances":
		return k.instances(ctx, args)
	case "instance":
		return k.instance(ctx, args)
	case "cancel":
		return k.cancel(ctx, args)
	case "tasks":
		return k.tasks(ctx, args)
	case "complete-task":
		return k.completeTask(ctx, args)
	case "jobs":
		if len(args) == 0 {
			return fmt.Errorf("jobs: %w: want activate, complete or fail", errUsage)
		}
		switch args[0] {
		case "activate":
			return k.jobsActivate(ctx, args[1:])
		case "complete":
			return k.jobsComplete(ctx, args[1:])
		case "fail":
			return k.jobsFail(ctx, args[1:])
		}
		return fmt.Errorf("jobs: %w: unknown %q", errUsage, args[0])
	case "incidents":
		return k.incidents(ctx, args)
	case "retry":
		return k.retry(ctx, args)
	case "message":
		return k.message(ctx, args)
	case "signal":
		return k.signal(ctx, args)
	case "batch":
		return k.batch(ctx, args)
	case "history":
		if len(args) == 0 || args[0] != "export" {
			return fmt.Errorf("history: %w: want export", errUsage)
		}
		return k.historyExport(ctx, args[1:])
	}
	return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
}

// print writes v as JSON, or the table rows when the output is a table.
func (k *cli) print(v any, header string, rows [][]string) error {
	if k.json {
		enc := json.NewEncoder(k.out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(k.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func (k *cli) deploy(ctx context.Context, args []string) error {
	files, err := k.parse(flag.NewFlagSet("deploy", flag.ContinueOnError), args, -1)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("deploy: %w: name at least one file", errUsage)
	}
	d, err := k.c.DeployFiles(ctx, files...)
	if err != nil {
		return err
	}
	var rows [][]string
	for _, p := range d.Processes {
		rows = append(rows, []string{"process", p.Key, strconv.Itoa(p.Version)})
	}
	for _, p := range d.Decisions {
		rows = append(rows, []string{"decision", p.Key, strconv.Itoa(p.Version)})
	}
	return k.print(d, "KIND\tKEY\tVERSION", rows)
}

func (k *cli) processes(ctx context.Context, args []string) error {
	if _, err := k.parse(flag.NewFlagSet("processes", flag.ContinueOnError), args, 0); err != nil {
		return err
	}
	ps, err := k.c.Processes(ctx)
	if err != nil {
		return err
	}
	var rows [][]string
	for _, p := range ps {
		rows = append(rows, []string{p.Key, strconv.Itoa(p.Version), p.Name, p.DeployedAt})
	}
	return k.print(ps, "KEY\tVERSION\tNAME\tDEPLOYED", rows)
}

func (k *cli) start(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("start", flag.ContinueOnError)
	vs := vars{}
	fs.Var(vs, "var", "variable k=v (repeatable)")
	bk := fs.String("business-key", "", "business key")
	idem := fs.String("idempotency-key", "", "idempotency key (makes the start safe to repeat)")
	pos, err := k.parse(fs, args, 1)
	if err != nil {
		return err
	}
	inst, err := k.c.Start(ctx, pos[0], client.StartRequest{Variables: vs, BusinessKey: *bk, IdempotencyKey: *idem})
	if err != nil {
		return err
	}
	return k.printInstance(ctx, inst)
}

func (k *cli) instances(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("instances", flag.ContinueOnError)
	status := fs.String("status", "", "running, completed, terminated or failed")
	process := fs.String("process", "", "process key")
	limit := fs.Int("limit", 0, "page size")
	var where filters
	fs.Var(&where, "where", "variable filter name:op:value (op eq, neq, gt, gte, lt, lte, like) or name=JSON (repeatable)")
	if _, err := k.parse(fs, args, 0); err != nil {
		return err
	}
	page, err := k.c.Instances(ctx, client.InstanceFilter{Status: *status, ProcessKey: *process, Variables: where, Limit: *limit})
	if err != nil {
		return err
	}
	var rows [][]string
	for _, i := range page.Items {
		rows = append(rows, []string{fmt.Sprintf("%s #%d", i.ProcessKey, i.Number), strconv.Itoa(i.Version), i.Status, i.BusinessKey, i.CreatedAt, i.ID})
	}
	return k.print(page, "INSTANCE\tVERSION\tSTATUS\tBUSINESS KEY\tCREATED\tID", rows)
}

func (k *cli) instance(ctx context.Context, args []string) error {
	pos, err := k.parse(flag.NewFlagSet("instance", flag.ContinueOnError), args, 1)
	if err != nil {
		return err
	}
	inst, err := k.c.Instance(ctx, pos[0])
	if err != nil {
		return err
	}
	return k.printInstance(ctx, inst)
}

// instanceOut is an instance with its waits, as -o json prints it.
type instanceOut struct {
	client.Instance
	Waits []client.Wait `json:"waits"`
}

// printInstance shows an instance, what it waits for, its incidents and
// its variables.
func (k *cli) printInstance(ctx context.Context, inst client.Instance) error {
	waits := []client.Wait{}
	if inst.Status == "running" {
		ws, err := k.c.Waits(ctx, inst.ID, 0)
		if err != nil {
			return err
		}
		waits = ws
	}
	if k.json {
		return k.print(instanceOut{inst, waits}, "", nil)
	}
	tw := tabwriter.NewWriter(k.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Instance:\t%s #%d\n", inst.ProcessKey, inst.Number)
	fmt.Fprintf(tw, "ID:\t%s\n", inst.ID)
	fmt.Fprintf(tw, "Process:\t%s v%d\n", inst.ProcessKey, inst.Version)
	fmt.Fprintf(tw, "Status:\t%s\n", inst.Status)
	if inst.BusinessKey != "" {
		fmt.Fprintf(tw, "Business key:\t%s\n", inst.BusinessKey)
	}
	fmt.Fprintf(tw, "Created:\t%s\n", inst.CreatedAt)
	if inst.EndedAt != "" {
		fmt.Fprintf(tw, "Ended:\t%s\n", inst.EndedAt)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(waits) > 0 {
		fmt.Fprintln(k.out, "\nWaiting at:")
		tw = tabwriter.NewWriter(k.out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  NODE\tKIND\tNAME\tDUE\tID")
		for _, w := range waits {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", w.NodeID, w.Kind, orDash(w.Name), orDash(w.DueAt), w.ID)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	header := "\nOpen incidents:"
	for _, i := range inst.Incidents {
		if i.ResolvedAt == "" {
			fmt.Fprintln(k.out, header)
			header = ""
			fmt.Fprintf(k.out, "  %s at %s: %s\n", i.ID, deref(i.NodeID), i.Message)
		}
	}
	if len(inst.Variables) > 0 {
		fmt.Fprintln(k.out, "\nVariables:")
		names := make([]string, 0, len(inst.Variables))
		for n := range inst.Variables {
			names = append(names, n)
		}
		sort.Strings(names)
		tw = tabwriter.NewWriter(k.out, 0, 0, 2, ' ', 0)
		for _, n := range names {
			b, _ := json.Marshal(inst.Variables[n])
			fmt.Fprintf(tw, "  %s\t%s\n", n, b)
		}
		return tw.Flush()
	}
	return nil
}

func (k *cli) cancel(ctx context.Context, args []string) error {
	pos, err := k.parse(flag.NewFlagSet("cancel", flag.ContinueOnError), args, 1)
	if err != nil {
		return err
	}
	inst, err := k.c.Cancel(ctx, pos[0])
	if err != nil {
		return err
	}
	return k.printInstance(ctx, inst)
}

func (k *cli) tasks(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tasks", flag.ContinueOnError)
	var f client.TaskFilter
	fs.StringVar(&f.Assignee, "assignee", "", "assigned to user")
	fs.StringVar(&f.CandidateGroup, "group", "", "offered to group")
	fs.StringVar(&f.InstanceID, "instance", "", "of instance")
	if _, err := k.parse(fs, args, 0); err != nil {
		return err
	}
	page, err := k.c.Tasks(ctx, f)
	if err != nil {
		return err
	}
	var rows [][]string
	for _, t := range page.Items {
		rows = append(rows, []string{t.ID, t.Name, t.InstanceID, deref(t.Assignee), strings.Join(t.CandidateGroups, ",")})
	}
	return k.print(page, "ID\tNAME\tINSTANCE\tASSIGNEE\tGROUPS", rows)
}

func (k *cli) completeTask(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("complete-task", flag.ContinueOnError)
	vs := vars{}
	fs.Var(vs, "var", "variable k=v (repeatable)")
	pos, err := k.parse(fs, args, 1)
	if err != nil {
		return err
	}
	t, err := k.c.Task(ctx, pos[0])
	if err != nil {
		return err
	}
	if t.Assignee == nil {
		if _, err := k.c.ClaimTask(ctx, t.ID); err != nil {
			return err
		}
	}
	if err := k.c.CompleteTask(ctx, t.ID, vs); err != nil {
		return err
	}
	return k.print(map[string]any{"completed": t.ID}, "COMPLETED", [][]string{{t.ID}})
}

func (k *cli) jobsActivate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("jobs activate", flag.ContinueOnError)
	max := fs.Int("max", 10, "most jobs to activate")
	lock := fs.Duration("lock", 5*time.Minute, "lock duration")
	worker := fs.String("worker", "gobpm-cli", "worker name")
	wait := fs.Duration("wait", 0, "long-poll this long for a job")
	pos, err := k.parse(fs, args, 1)
	if err != nil {
		return err
	}
	jobs, err := k.c.ActivateJobs(ctx, client.ActivateRequest{Type: pos[0], Worker: *worker, MaxJobs: *max, LockDuration: *lock, RequestTimeout: *wait})
	if err != nil {
		return err
	}
	if jobs == nil {
		jobs = []client.Job{}
	}
	var rows [][]string
	for _, j := range jobs {
		rows = append(rows, []string{j.Key, j.LockToken, j.InstanceID, j.NodeID, strconv.Itoa(j.Retries), j.Deadline})
	}
	return k.print(jobs, "KEY\tLOCK TOKEN\tINSTANCE\tNODE\tRETRIES\tDEADLINE", rows)
}

func (k *cli) jobsComplete(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("jobs complete", flag.ContinueOnError)
	token := fs.String("lock-token", "", "lock token from jobs activate (required)")
	vs := vars{}
	fs.Var(vs, "var", "variable k=v (repeatable)")
	pos, err := k.parse(fs, args, 1)
	if err != nil {
		return err
	}
	if *token == "" {
		return fmt.Errorf("jobs complete: %w: --lock-token is required", errUsage)
	}
	if err := k.c.CompleteJob(ctx, client.Job{Key: pos[0], LockToken: *token}, vs); err != nil {
		return err
	}
	return k.print(map[string]any{"completed": pos[0]}, "COMPLETED", [][]string{{pos[0]}})
}

func (k *cli) jobsFail(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("jobs fail", flag.ContinueOnError)
	token := fs.String("lock-token", "", "lock token from jobs activate (required)")
	retries := fs.Int("retries", -1, "retries left (default: one less); 0 raises an incident")
	msg := fs.String("message", "", "error message")
	backoff := fs.Duration("backoff", 0, "retry backoff (default: the server's schedule)")
	pos, err := k.parse(fs, args, 1)
	if err != nil {
		return err
	}
	if *token == "" {
		return fmt.Errorf("jobs fail: %w: --lock-token is required", errUsage)
	}
	req := client.FailRequest{Message: *msg, RetryBackoff: *backoff}
	if *retries >= 0 {
		req.Retries = retries
	}
	if err := k.c.FailJob(ctx, client.Job{Key: pos[0], LockToken: *token}, req); err != nil {
		return err
	}
	return k.print(map[string]any{"failed": pos[0]}, "FAILED", [][]string{{pos[0]}})
}

func (k *cli) incidents(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("incidents", flag.ContinueOnError)
	inst := fs.String("instance", "", "of instance")
	if _, err := k.parse(fs, args, 0); err != nil {
		return err
	}
	incs, _, err := k.c.Incidents(ctx, client.IncidentFilter{InstanceID: *inst})
	if err != nil {
		return err
	}
	if incs == nil {
		incs = []client.Incident{}
	}
	var rows [][]string
	for _, i := range incs {
		rows = append(rows, []string{i.ID, i.InstanceID, deref(i.NodeID), i.Kind, i.Message})
	}
	return k.print(incs, "ID\tINSTANCE\tNODE\tKIND\tMESSAGE", rows)
}

func (k *cli) retry(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("retry", flag.ContinueOnError)
	retries := fs.Int("retries", 1, "retries to give the job")
	pos, err := k.parse(fs, args, 1)
	if err != nil {
		return err
	}
	inc, err := k.c.RetryIncident(ctx, pos[0], *retries)
	if err != nil {
		return err
	}
	return k.print(inc, "ID\tINSTANCE\tRESOLVED", [][]string{{inc.ID, inc.InstanceID, inc.ResolvedAt}})
}

func (k *cli) message(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("message", flag.ContinueOnError)
	key := fs.String("key", "", "correlation key")
	vs := vars{}
	fs.Var(vs, "var", "variable k=v (repeatable)")
	pos, err := k.parse(fs, args, 1)
	if err != nil {
		return err
	}
	n, err := k.c.CorrelateMessage(ctx, client.MessageRequest{Name: pos[0], CorrelationKey: *key, Variables: vs})
	if err != nil {
		return err
	}
	return k.print(map[string]int{"correlated": n}, "CORRELATED", [][]string{{strconv.Itoa(n)}})
}

func (k *cli) signal(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("signal", flag.ContinueOnError)
	vs := vars{}
	fs.Var(vs, "var", "variable k=v (repeatable)")
	pos, err := k.parse(fs, args, 1)
	if err != nil {
		return err
	}
	n, err := k.c.BroadcastSignal(ctx, client.SignalRequest{Name: pos[0], Variables: vs})
	if err != nil {
		return err
	}
	return k.print(map[string]int{"triggered": n}, "TRIGGERED", [][]string{{strconv.Itoa(n)}})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// historyExport streams the history export's fact lines to standard
// output and says the cursor to continue from on standard error.
func (k *cli) historyExport(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("history export", flag.ContinueOnError)
	from := fs.String("from", "", "only facts at or after this RFC 3339 time")
	to := fs.String("to", "", "only facts before this RFC 3339 time")
	var procs multi
	fs.Var(&procs, "process", "only facts of this process key's instances (repeatable)")
	var f client.ExportFilter
	fs.StringVar(&f.Cursor, "cursor", "", "continue after this cursor")
	fs.IntVar(&f.Limit, "limit", 0, "the most facts of one answer")
	fs.BoolVar(&f.CloudEvents, "cloudevents", false, "CloudEvents 1.0 lines")
	all := fs.Bool("all", false, "follow the cursor until the export is up to date")
	if _, err := k.parse(fs, args, 0); err != nil {
		return err
	}
	for _, t := range []struct {
		name, v string
		dst     *time.Time
	}{{"--from", *from, &f.From}, {"--to", *to, &f.To}} {
		if t.v == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339Nano, t.v)
		if err != nil {
			return fmt.Errorf("history export: %w: %s %q is not an RFC 3339 time such as 2025-03-14T15:09:26Z", errUsage, t.name, t.v)
		}
		*t.dst = v
	}
	f.Processes = procs
	for {
		end, err := k.c.ExportHistory(ctx, f, k.out)
		if err != nil {
			if end.Cursor != "" {
				fmt.Fprintf(k.err, "cursor %s (resume after the last complete line)\n", end.Cursor)
			}
			return err
		}
		if !*all || !end.More {
			fmt.Fprintf(k.err, "cursor %s more %t\n", end.Cursor, end.More)
			return nil
		}
		f.Cursor = end.Cursor
	}
}
